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

// setting matches an IDEMQ_ variable's name in a string: a name in
// upper case, not a family's prefix ("IDEMQ_KEY_*").
var setting = regexp.MustCompile(`IDEMQ_[A-Z0-9_]*[A-Z0-9]\b\*?`)

// notSettings are IDEMQ_ names that are no program's setting: the test
// servers' addresses and the harness's and the release tool's knobs, read
// by tests alone (IDEMQ_PROOF_VERSION: which release the module-proxy
// proof proves); the row a build with the tag idemq_keysource adds to
// request.Fields (request/fields_keysource.go, TestSecondKeySource); and
// a name the CDK construct's tests give it to see it refused.
func notSetting(name string) bool {
	switch name {
	case "IDEMQ_DEPLOYLOCAL_LOG", "IDEMQ_RIE", "IDEMQ_PROOF_VERSION", "IDEMQ_KEY_DEDUPLICATION_ID", "IDEMQ_SOMETHING_NEW":
		return true
	}
	return strings.HasPrefix(name, "IDEMQ_TEST_")
}

// Every variable is a row of the one table (vars, and request.Fields'
// rows it reads): a program, a test, the command or the CDK construct
// spells a variable's name as a string, and every IDEMQ_ name in a string
// of the repository's Go code is looked up in the table here. A variable
// added elsewhere, in the old style, or a name misspelt fails until it is
// a row of the table (vars.go).
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
			case "node_modules", "testdata", ".git", "bin", "cdk.out":
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
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
			for _, name := range setting.FindAllString(s, -1) {
				if strings.HasSuffix(name, "*") || notSetting(name) {
					continue
				}
				if _, ok := Lookup(name); !ok && !isRetired(name) {
					t.Errorf("%s: %q names %s, which is no variable: make it a row of the table (vars.go)", fset.Position(lit.Pos()), s, name)
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

// isRetired reports whether name is a variable no program reads any more.
func isRetired(name string) bool {
	for _, r := range retired {
		if r.name == name {
			return true
		}
	}
	return false
}
