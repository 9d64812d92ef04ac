package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// folders ranks the repository's top-level folders, ground first: a
// non-test Go file may import only packages of its own folder and of
// folders ranked below it, so the folders read as the layers they are
// (the model at the bottom, the commands and the harness on top).
// internal/ is one folder, at the ground: what the model shares with
// every part and no user names (the options kit, the stores' helpers, a
// runner's context values) and the test kits that import no part; a kit
// that runs a part lives beside it (handler/handlertest/handlerbundle,
// frontdoor/frontdoortest, idem/internal/lintest).
var folders = []string{
	// Shared leaves: production helpers and part-free test kits.
	"internal",
	// The arithmetic of a queue's settings and the back-off of its
	// calls; the model of a record and its stores.
	"queue",
	"idem",
	// Who a request is, and every IDEMQ_* variable parsed.
	"request",
	"idemqenv",
	// The parts: the handler, what sends to it, what feeds it.
	"handler",
	"producer",
	"consumer",
	"durable",
	"idemqotel",
	"frontdoor",
	// The CDK constructs and their app.
	"infra",
	// The one wiring place of the worker, the front door and the
	// dispatcher.
	"worker",
	// Programs: the command, the Lambda worker, the harness, the examples,
	// the release tool.
	"cmd",
	"lambda",
	"harness",
	"examples",
	"tools",
}

// skipDirs are folders that hold no file of the repository's own code.
var skipDirs = []string{"testdata", "node_modules", "cdk.out", "vendor"}

// folderImports returns, for each top-level folder under root, the
// top-level folders its non-test Go files import (every build tag
// included: the files are parsed, not built), each with a file that does.
func folderImports(t *testing.T, root string) (imports map[string]map[string]string, files int) {
	t.Helper()
	imports = map[string]map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || slices.Contains(skipDirs, d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		from := topFolder(filepath.ToSlash(filepath.Dir(rel)))
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		if imports[from] == nil {
			imports[from] = map[string]string{}
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			rest, ok := ours(path)
			if !ok {
				continue
			}
			if to := topFolder(rest); to != from && imports[from][to] == "" {
				imports[from][to] = rel + " imports " + path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports, files
}

// topFolder is the top-level folder of a folder's path from the
// repository's root ("." for the root).
func topFolder(dir string) string {
	first, _, _ := strings.Cut(dir, "/")
	return first
}

// foldersGoDown reports every import of a folder ranked at or above the
// importer's, and every folder with no rank.
func foldersGoDown(imports map[string]map[string]string) []string {
	var bad []string
	froms := make([]string, 0, len(imports))
	for from := range imports {
		froms = append(froms, from)
	}
	slices.Sort(froms)
	for _, from := range froms {
		rank := slices.Index(folders, from)
		if rank < 0 {
			bad = append(bad, from+"/ has Go files but no rank in folders")
			continue
		}
		tos := make([]string, 0, len(imports[from]))
		for to := range imports[from] {
			tos = append(tos, to)
		}
		slices.Sort(tos)
		for _, to := range tos {
			switch toRank := slices.Index(folders, to); {
			case toRank < 0:
				bad = append(bad, from+"/ imports "+to+"/, which has no rank in folders ("+imports[from][to]+")")
			case toRank > rank:
				bad = append(bad, from+"/ (rank "+strconv.Itoa(rank)+") imports "+to+"/ (rank "+strconv.Itoa(toRank)+"), an arrow back up: "+imports[from][to])
			}
		}
	}
	return bad
}

// Every top-level folder imports only folders ranked below it: no arrow
// runs back up between the repository's folders, tests left out (a test
// may use a kit from any folder).
func TestFoldersGoDown(t *testing.T) {
	t.Parallel()
	imports, files := folderImports(t, "../..")
	for _, bad := range foldersGoDown(imports) {
		t.Error(bad)
	}
	if files < 300 {
		t.Errorf("read %d Go files: the walk missed the repository", files)
	}
	for _, f := range folders {
		if _, ok := imports[f]; !ok {
			t.Errorf("folder %s/ is ranked but has no Go file: did it move?", f)
		}
	}
}

// The check finds an arrow back up, and a folder with no rank.
func TestFoldersGoDownFinds(t *testing.T) {
	t.Parallel()
	imports := map[string]map[string]string{
		"internal": {"idem": "internal/y/y.go imports " + module + "/idem"},
		"handler":  {"idem": "handler/h.go imports " + module + "/idem"},
		"attic":    {},
		"producer": {"nowhere": "producer/p.go imports " + module + "/nowhere/z"},
	}
	got := foldersGoDown(imports)
	want := []string{"attic/ has Go files", "internal/ (rank 0) imports idem/", "producer/ imports nowhere/"}
	if len(got) != len(want) {
		t.Fatalf("found %q; want %d findings beginning %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("finding %d: %q; want it to begin %q", i, got[i], want[i])
		}
	}
}
