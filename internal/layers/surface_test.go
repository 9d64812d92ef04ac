package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The library's exported surface: every top-level exported name (type,
// function, constant, variable) of a package a user imports, the test
// kits, commands and internal packages left out. Methods and fields are
// not counted: they come with their type. v1.0 freezes what is here, so
// each name must earn its place.
//
// maxSurface only goes down: lower it whenever a change removes names.
// The v1.0 goal is 400 (issue 42); v0.2.0 had 642. 398 became 400 with
// handler/stream's New and Handlers (issue 43), 401 with its
// KafkaEventResponse (aws-lambda-go has no Kafka response), 403 with
// queue.Stream (a stream's record lifetime) and idemqcdk.StreamSource (an
// Attachment to a stream) (issue 43).
const (
	maxSurface        = 403
	maxHandlerOptions = 12
	surfaceGoal       = 400
)

// surfaceRoots are the folders whose packages users import: the library's
// modules and the CDK constructs.
var surfaceRoots = []string{".", "infra/idemqcdk"}

// notSurface are folders under the roots that hold no user-facing package.
var notSurface = []string{"internal", "harness", "tools", "examples", "cmd", "lambda", "testdata", "node_modules", "cdk.out", "bin", "scripts", "docs", "results"}

// isTestKit reports whether a package is a test kit (handlertest,
// dynamotest, idemtest and what it holds): those are for tests only.
func isTestKit(dir string) bool {
	for _, part := range strings.Split(dir, "/") {
		if strings.HasSuffix(part, "test") {
			return true
		}
	}
	return false
}

// surface counts the exported top-level names of each user-facing
// package, by folder from the repository's root.
func surface(t *testing.T, root string) map[string][]string {
	t.Helper()
	names := map[string][]string{}
	for _, start := range surfaceRoots {
		err := filepath.WalkDir(filepath.Join(root, start), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel != "." && (strings.HasPrefix(d.Name(), ".") || slices.Contains(notSurface, d.Name()) || rel == "infra" && start == ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			dir := filepath.ToSlash(filepath.Dir(rel))
			if isTestKit(dir) {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			if f.Name.Name == "main" {
				return nil
			}
			names[dir] = append(names[dir], exported(f)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// exported lists a file's exported top-level names.
func exported(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// TestSurface holds the number of exported names at or under maxSurface,
// and the handler's options at or under maxHandlerOptions; with -v it
// prints the count of each package.
func TestSurface(t *testing.T) {
	t.Parallel()
	names := surface(t, "../..")
	dirs := make([]string, 0, len(names))
	total := 0
	for dir, n := range names {
		dirs = append(dirs, dir)
		total += len(n)
	}
	slices.SortFunc(dirs, func(a, b string) int { return len(names[b]) - len(names[a]) })
	var table strings.Builder
	for _, dir := range dirs {
		fmt.Fprintf(&table, "%5d  %s\n", len(names[dir]), dir)
	}
	t.Logf("exported names: %d in %d packages (at most %d; the v1.0 goal is %d)\n%s", total, len(dirs), maxSurface, surfaceGoal, table.String())
	if total > maxSurface {
		t.Errorf("%d exported names, more than %d: a name added must earn its place (and replace another); per package:\n%s", total, maxSurface, table.String())
	}
	if len(names["handler"]) == 0 || len(names["idem"]) == 0 {
		t.Fatalf("found no exported names in handler or idem: the walk is wrong (%v)", dirs)
	}
	var options []string
	for _, n := range names["handler"] {
		if strings.HasPrefix(n, "With") {
			options = append(options, n)
		}
	}
	t.Logf("handler options: %d (at most %d): %s", len(options), maxHandlerOptions, strings.Join(options, ", "))
	if len(options) > maxHandlerOptions {
		t.Errorf("handler has %d options, more than %d: %s", len(options), maxHandlerOptions, strings.Join(options, ", "))
	}
}

// The walk finds what it must: a package's exported names, and none of a
// test kit, an internal package or a command.
func TestSurfaceWalk(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(path, src string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/a.go", "package lib\nconst A, b = 1, 2\ntype T struct{}\nfunc (T) M() {}\nfunc F() {}\nvar V, W int\n")
	write("lib/a_test.go", "package lib\nfunc TestX() {}\n")
	write("lib/libtest/kit.go", "package libtest\nfunc Kit() {}\n")
	write("internal/x/x.go", "package x\nfunc X() {}\n")
	write("cmd/tool/main.go", "package main\nfunc Main() {}\n")
	write("infra/idemqcdk/c.go", "package idemqcdk\nfunc NewThing() {}\n")
	write("infra/main.go", "package main\nfunc App() {}\n")
	got := surface(t, root)
	want := map[string][]string{"lib": {"A", "T", "F", "V", "W"}, "infra/idemqcdk": {"NewThing"}}
	if len(got) != len(want) {
		t.Fatalf("surface %v, want %v", got, want)
	}
	for dir, w := range want {
		if !slices.Equal(got[dir], w) {
			t.Errorf("surface of %s: %v, want %v", dir, got[dir], w)
		}
	}
}
