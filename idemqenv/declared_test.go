package idemqenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// setting matches a string that names an IDEMQ_ variable: the name alone,
// or the name and "=" (an environment entry).
var setting = regexp.MustCompile(`^(IDEMQ_[A-Z0-9_]+)(=.*)?$`)

// notSettings are IDEMQ_ names that are no program's setting: the test
// servers' addresses and the harness's and the release tool's knobs, read
// by tests alone (IDEMQ_PROOF_VERSION: which release the module-proxy
// proof proves).
func notSetting(name string) bool {
	return strings.HasPrefix(name, "IDEMQ_TEST_") || name == "IDEMQ_DEPLOYLOCAL_LOG" || name == "IDEMQ_RIE" || name == "IDEMQ_PROOF_VERSION"
}

// declaredElsewhere are the files outside this package that may spell a
// setting's name, as they cannot import this package (which stands above
// them): request's table of who a request is (request.Fields), whose rows
// this package reads as its own (requestVars), and the row a build with
// the tag idemq_keysource adds to it; the store opener's, which names
// IDEMQ_STORE and IDEMQ_STORE_URL in its messages
// (TestStoresNameOurVariables holds them equal); and the DynamoDB store's
// test kit, which names the endpoint the test servers export (its
// TestEndpointEnv holds it equal).
var declaredElsewhere = map[string]bool{"request/fields.go": true, "request/fields_keysource.go": true,
	"idem/stores/vars.go": true, "idem/dynamostore/dynamotest/dynamotest.go": true}

// No program declares an IDEMQ_ setting of its own: outside this package
// and the tests, no string spells one's name (the worker, the command, the
// CDK construct and the harness use the constants). A variable added
// elsewhere, in the old style, fails here until it is a row of the table.
func TestNamesDeclaredOnce(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", "bin", "cdk.out", "idemqenv":
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || declaredElsewhere[rel] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if m := setting.FindStringSubmatch(s); m != nil && !notSetting(m[1]) {
				if _, ok := Lookup(m[1]); ok {
					t.Errorf("%s: %q spells %s: use idemqenv's constant", fset.Position(lit.Pos()), s, m[1])
				} else {
					t.Errorf("%s: %q declares %s outside idemqenv: make it a row of the table (vars.go)", fset.Position(lit.Pos()), s, m[1])
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files under %s: not the repository?", checked, root)
	}
}
