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

// TestFilesGoDown holds the files of every package of the modules make
// test runs under go test -race (the Makefile's MODULES: the library, the
// command, the reference worker in lambda/, the release tool; and the
// proof and benchmark harness, harness/), and of the CDK constructs (infra/idemqcdk), layered as the packages are: a file
// uses (names something defined in) only files below it, so the package
// reads from its ground floor up (handler: the function types, the
// tracer's interface, then Config, its options, the batch, the batch's
// steps, and the constructors on top; idemqcdk: the settings and props,
// the checks, the parts, then the constructs) and no file reaches back up
// into a file that uses it (handler's Config into its batch machinery,
// say). Main packages count: they are code too, read as the rest is.
func TestFilesGoDown(t *testing.T) {
	t.Parallel()
	checked := 0
	var listed []filePackage
	for _, l := range fileListings(t) {
		pkgs, exports := filePackages(t, l)
		listed = append(listed, pkgs...)
		// One importer for every package of a listing, so that each
		// dependency's export data (the AWS SDK's, say) is read once.
		fset := token.NewFileSet()
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if exports[path] == "" {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(exports[path])
		})
		for _, p := range pkgs {
			rel, _ := ours(p.path)
			uses, err := p.fileUses(fset, imp)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			checked++
			for _, knot := range knots(uses) {
				t.Errorf("%s: files %s use each other in a circle, so one of them reaches back up into a file that uses it:%s", rel, strings.Join(knot, ", "), describeKnot(uses, knot))
			}
		}
	}
	if !slices.ContainsFunc(listed, func(p filePackage) bool { return p.path == module+"/infra/idemqcdk" }) {
		t.Errorf("infra/idemqcdk was not checked: did it move?")
	}
	// The library alone has more than 40 packages, the harness more
	// than 10: fewer means the list missed a module.
	if checked < 50 {
		t.Errorf("checked %d packages; the modules have more than 50", checked)
	}
	if !slices.ContainsFunc(listed, func(p filePackage) bool { return strings.HasPrefix(p.path, module+"/harness/") }) {
		t.Error("no package of harness/ checked")
	}
	t.Logf("checked the files of %d packages", checked)
}

// A fileListing is one go list call: the packages matched by patterns
// from dir, built with flags and env.
type fileListing struct {
	dir        string
	patterns   []string
	flags, env []string
}

// fileListings are the go list calls of TestFilesGoDown: the modules of
// MODULES with the test binary's flags (-race under make test); the CDK
// constructs, a module of their own (infra/), with the CDK apps' build
// flags (make test-builds, test-infra: CGO_ENABLED=0 -trimpath), whose
// export data is in the cache: with -race, go list would compile the
// CDK's bindings again, minutes of CPU.
func fileListings(t *testing.T) []fileListing {
	return []fileListing{
		// harness/ is a module of go.work, so ./harness/... from the root:
		// make test's harness phase (go -C harness test -race) compiles its
		// packages with these flags, from the cache go list fills here.
		{dir: "../..", patterns: append(modulePatterns(t), "./harness/..."), flags: testenv.GoFlags(t)},
		{dir: "../../infra", patterns: []string{"./idemqcdk"}, flags: []string{"-trimpath"}, env: []string{"CGO_ENABLED=0"}},
	}
}

// describeKnot writes each use between the files of a knot, with the
// names used.
func describeKnot(uses map[string]map[string][]string, knot []string) string {
	var b strings.Builder
	for _, from := range knot {
		for _, to := range sortedKeys(uses[from]) {
			if slices.Contains(knot, to) {
				fmt.Fprintf(&b, "\n\t%s uses %s: %s", from, to, strings.Join(uses[from][to], ", "))
			}
		}
	}
	return b.String()
}

// The check finds each group of files in a circle, and none where the
// files are layered.
func TestKnots(t *testing.T) {
	t.Parallel()
	layered := map[string]map[string][]string{
		"top.go":    {"middle.go": {"Batch"}, "ground.go": {"Config"}},
		"middle.go": {"ground.go": {"Config"}},
	}
	if k := knots(layered); k != nil {
		t.Errorf("layered files: found the knots %q", k)
	}
	knotted := map[string]map[string][]string{
		"top.go":    {"middle.go": {"Batch"}, "b.go": {"B"}},
		"middle.go": {"ground.go": {"Config"}},
		"ground.go": {"top.go": {"New"}},
		"a.go":      {"b.go": {"B"}},
		"b.go":      {"a.go": {"A"}, "leaf.go": {"L"}},
	}
	want := [][]string{{"a.go", "b.go"}, {"ground.go", "middle.go", "top.go"}}
	if k := knots(knotted); !slices.EqualFunc(k, want, slices.Equal) {
		t.Errorf("knotted files: found %q; want %q", k, want)
	}
}

// modulePatterns returns a pattern (./dir/...) for each module of the
// Makefile's MODULES, the modules make test runs go test -race on.
func modulePatterns(t *testing.T) []string {
	t.Helper()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(mk)) {
		if rest, ok := strings.CutPrefix(line, "MODULES :="); ok {
			var pats []string
			for _, m := range strings.Fields(rest) {
				pats = append(pats, "./"+strings.TrimPrefix(m+"/...", "./"))
			}
			return pats
		}
	}
	t.Fatal("the Makefile has no MODULES := line")
	return nil
}

// A filePackage is a package to type-check from its non-test files.
type filePackage struct {
	path, dir string
	names     []string
}

// filePackages lists the packages l matches, with the export data of
// every package they import, by import path, in one go list call: the
// export data of the run's builds, so that go list compiles only what the
// run's tests do not (the main packages).
func filePackages(t *testing.T, l fileListing) ([]filePackage, map[string]string) {
	t.Helper()
	args := append(append([]string{"list"}, l.flags...), "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.DepOnly}}\t{{.Dir}}\t{{join .GoFiles \" \"}}")
	cmd := exec.Command("go", append(args, l.patterns...)...)
	cmd.Dir = l.dir
	cmd.Env = append(os.Environ(), l.env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", l.dir, err, stderr(err))
	}
	exports := map[string]string{}
	var pkgs []filePackage
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		exports[f[0]] = f[1]
		if _, ok := ours(f[0]); ok && f[2] == "false" {
			pkgs = append(pkgs, filePackage{path: f[0], dir: f[3], names: strings.Fields(f[4])})
		}
	}
	return pkgs, exports
}

// fileUses type-checks the package's non-test files and returns, for each
// file, the other files it uses and the names it uses from each (a type,
// a function, a method, a field, a constant).
func (p filePackage) fileUses(fset *token.FileSet, imp types.Importer) (map[string]map[string][]string, error) {
	var files []*ast.File
	for _, name := range p.names {
		f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(p.path, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-check: %v", err)
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
	return uses, nil
}

// knots returns the groups of files that use each other in a circle
// (each file of a group reaches every other through the files it uses),
// each sorted, in the order of their first files; none where the files
// are layered.
func knots(uses map[string]map[string][]string) [][]string {
	// Tarjan's strongly connected components.
	index, low := map[string]int{}, map[string]int{}
	var stack []string
	onStack := map[string]bool{}
	var found [][]string
	var visit func(string)
	visit = func(f string) {
		index[f], low[f] = len(index), len(index)
		stack = append(stack, f)
		onStack[f] = true
		for _, to := range sortedKeys(uses[f]) {
			if _, seen := index[to]; !seen {
				visit(to)
				low[f] = min(low[f], low[to])
			} else if onStack[to] {
				low[f] = min(low[f], index[to])
			}
		}
		if low[f] != index[f] {
			return
		}
		i := slices.Index(stack, f)
		group := slices.Clone(stack[i:])
		for _, g := range group {
			onStack[g] = false
		}
		stack = stack[:i]
		if len(group) > 1 {
			slices.Sort(group)
			found = append(found, group)
		}
	}
	for _, f := range sortedKeys(uses) {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	slices.SortFunc(found, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return found
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
