package usergraph

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemq/idemq/harness/internal/repo"
)

// user is a user's module: the packages it imports, the module paths
// (prefixes) it may not carry, and those it must (so that the test sees
// the graph of a module that really imports the store).
type user struct {
	imports, forbidden, needed []string
}

// users are the users whose graphs are checked.
var users = map[string]user{
	// The handler and one store, as a DynamoDB user's Lambda function does.
	"handler and dynamostore": {
		imports: []string{"handler", "idem/dynamostore"},
		forbidden: []string{
			"github.com/jackc/pgx",
			"github.com/redis/go-redis",
			"github.com/aws/aws-sdk-go-v2/service/s3",
			"github.com/aws/aws-sdk-go-v2/service/secretsmanager",
			"github.com/aws/aws-sdk-go-v2/service/lambda",
			"github.com/gowebpki/jcs",
			// Tracing is idemqotel's, a module of its own: handler only
			// defines the hook.
			"go.opentelemetry.io",
		},
		needed: []string{"github.com/aws/aws-sdk-go-v2/service/dynamodb"},
	},
	// The worker's contract (FromEnv), as a function of the user's own
	// on DynamoDB does: the S3 client for the results bucket, but no other
	// store's driver (their openers are their modules').
	"worker": {
		imports: []string{"worker"},
		forbidden: []string{
			"github.com/jackc/pgx",
			"github.com/redis/go-redis",
			"github.com/aws/aws-sdk-go-v2/service/secretsmanager",
			"github.com/aws/aws-sdk-go-v2/service/lambda",
			"github.com/gowebpki/jcs",
			"go.opentelemetry.io",
		},
		needed: []string{"github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/aws/aws-sdk-go-v2/service/s3"},
	},
}

// TestUserModuleGraph tidies a throwaway module for each user, with
// replace directives pointing at the working tree's modules, outside the
// workspace (GOWORK=off), and fails if go mod graph lists a requirement
// the user does not use.
func TestUserModuleGraph(t *testing.T) {
	t.Parallel()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	for name, u := range users {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkGraph(t, root, u)
		})
	}
}

func checkGraph(t *testing.T, root string, u user) {
	dir := t.TempDir()
	var goMod, main strings.Builder
	goMod.WriteString("module example.com/user\n\ngo 1.26.0\n\n")
	main.WriteString("package main\n\nimport (\n")
	required := map[string]bool{} // module paths the imports need
	for _, pkg := range u.imports {
		path, _ := enclosingModule(t, root, filepath.Join(root, filepath.FromSlash(pkg)))
		required[path] = true
		main.WriteString("\t_ \"" + repo.Module + "/" + pkg + "\"\n")
	}
	main.WriteString(")\n\nfunc main() {}\n")
	for path := range required {
		goMod.WriteString("require " + path + " v0.0.0-00010101000000-000000000000\n")
	}
	// Every module of the repository comes from the working tree, as all of
	// them would come from one release: go mod tidy reads the go.mod of the
	// modules the stores' tests import too.
	for path, modDir := range repoModules(t, root) {
		goMod.WriteString("replace " + path + " => " + modDir + "\n")
	}
	write(t, filepath.Join(dir, "go.mod"), goMod.String())
	write(t, filepath.Join(dir, "main.go"), main.String())

	goCmd(t, dir, "mod", "tidy")
	goCmd(t, dir, "build", "-o", os.DevNull, ".")
	graph := goCmd(t, dir, "mod", "graph")
	for _, line := range strings.Split(graph, "\n") {
		for _, bad := range u.forbidden {
			if fields := strings.Fields(line); len(fields) == 2 && strings.HasPrefix(fields[1], bad) {
				t.Errorf("the user's module graph has %s: %s", bad, line)
			}
		}
	}
	for _, want := range u.needed {
		if !strings.Contains(graph, " "+want+"@") {
			t.Errorf("the user's module graph lacks %s, which its imports need:\n%s", want, graph)
		}
	}
	if t.Failed() {
		t.Logf("go.mod:\n%s", goMod.String())
	}
}

// enclosingModule returns the module path and directory of the go.mod
// holding dir, searching from dir up to root.
func enclosingModule(t *testing.T, root, dir string) (path, modDir string) {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return strings.TrimSpace(rest), d
				}
			}
			t.Fatalf("%s/go.mod declares no module", d)
		}
		if d == root || d == filepath.Dir(d) {
			t.Fatalf("no go.mod holds %s", dir)
		}
	}
}

// repoModules returns every module of the repository under root: its
// path → its directory.
func repoModules(t *testing.T, root string) map[string]string {
	t.Helper()
	modules := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			modPath, modDir := enclosingModule(t, root, filepath.Dir(path))
			modules[modPath] = modDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return modules
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in dir as a user outside the repository's
// workspace would, and returns its standard output. It fails the test
// with a hint when the command fails: go mod tidy downloads what the
// module cache lacks from the module proxy.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		why := "go " + strings.Join(args, " ") + " in the user's module: " + err.Error() + "\n" + stderr.String()
		hint := "it needs the go command and, when the module cache lacks a requirement, the module proxy (GOPROXY); -short skips it"
		if testing.Short() {
			t.Skipf("%s; %s", why, hint)
		}
		t.Fatalf("%s; %s", why, hint)
	}
	return stdout.String()
}
