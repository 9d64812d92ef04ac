package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemq/idemq/internal/testenv"
)

// fileLayered are the packages whose files are layered as the packages
// are: a file uses (names something defined in) only files below it, so
// the package reads from its ground floor up (the function types, the
// tracer's interface, then Config, its options, the batch, the batch's
// steps, and the constructors on top) and no file reaches back up into a
// file that uses it (handler's Config into its batch machinery, say).
var fileLayered = []string{"handler", "idemqenv", "consumer", "frontdoor"}

func TestFilesGoDown(t *testing.T) {
	t.Parallel()
	for _, pkg := range fileLayered {
		uses := fileUses(t, module+"/"+pkg)
		if cycle := findCycle(uses); cycle != nil {
			var b strings.Builder
			for i, from := range cycle[:len(cycle)-1] {
				to := cycle[i+1]
				fmt.Fprintf(&b, "\n\t%s uses %s: %s", from, to, strings.Join(uses[from][to], ", "))
			}
			t.Errorf("%s: files use each other in a circle, so one of them reaches back up into a file that uses it:%s", pkg, b.String())
		}
		if len(uses) < 2 {
			t.Errorf("%s: %d files found using another: did the package move?", pkg, len(uses))
		}
	}
}

// fileUses type-checks the non-test files of the package at path and
// returns, for each file, the other files it uses and the names it uses
// from each (a type, a function, a method, a field, a constant).
func fileUses(t *testing.T, path string) map[string]map[string][]string {
	t.Helper()
	// The export data of the test run's build (-race under make test),
	// so that go list compiles nothing again.
	args := append(append([]string{"list"}, testenv.GoFlags(t)...), "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", path)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr(err))
	}
	exports := map[string]string{}
	var dir string
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		exports[f[0]] = f[1]
		if f[0] == path {
			dir, names = f[2], strings.Fields(f[3])
		}
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	lookup := func(p string) (io.ReadCloser, error) {
		if exports[p] == "" {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(exports[p])
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		t.Fatalf("type-check %s: %v", path, err)
	}
	uses := map[string]map[string][]string{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != pkg.Scope() {
			continue // a local variable or parameter
		}
		if _, ok := obj.(*types.Func); !ok && obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			continue // a local type or constant
		}
		from, to := filepath.Base(fset.Position(id.Pos()).Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		if uses[from] == nil {
			uses[from] = map[string][]string{}
		}
		if !slices.Contains(uses[from][to], obj.Name()) {
			uses[from][to] = append(uses[from][to], obj.Name())
		}
	}
	for _, tos := range uses {
		for _, names := range tos {
			slices.Sort(names)
		}
	}
	return uses
}

// findCycle returns a circle of files, the first repeated at its end, or
// nil when the files are layered.
func findCycle(uses map[string]map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack, cycle []string
	var visit func(string) bool
	visit = func(f string) bool {
		state[f] = open
		stack = append(stack, f)
		var tos []string
		for to := range uses[f] {
			tos = append(tos, to)
		}
		slices.Sort(tos)
		for _, to := range tos {
			switch state[to] {
			case open:
				cycle = append(slices.Clone(stack[slices.Index(stack, to):]), to)
				return true
			case unseen:
				if visit(to) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[f] = done
		return false
	}
	var froms []string
	for f := range uses {
		froms = append(froms, f)
	}
	slices.Sort(froms)
	for _, f := range froms {
		if state[f] == unseen && visit(f) {
			return cycle
		}
	}
	return nil
}
