package proxyproof

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/idemq/idemq/harness/internal/repo"
	"github.com/idemq/idemq/tools/release"
)

// users are the throwaway modules the proof makes: each gets the root
// module and one store (or the worker's contract), builds a program wiring them, and runs a
// handlertest test; its module graph must hold need and none of forbid.
var users = []struct {
	name  string
	store string // the store's module directory
	main  func(t *testing.T, root string) string
	// forbid are module path prefixes the user's graph must not hold: the
	// other stores' drivers, and what only other modules need.
	forbid []string
	need   []string
}{
	{
		name: "dynamostore", store: "idem/dynamostore", main: readmeExample,
		forbid: []string{
			"github.com/jackc/pgx", "github.com/redis/go-redis",
			"github.com/aws/aws-sdk-go-v2/service/s3", "github.com/aws/aws-sdk-go-v2/service/secretsmanager",
			"github.com/aws/aws-sdk-go-v2/service/lambda", "github.com/gowebpki/jcs", "go.opentelemetry.io",
			"golang.org/x/mod",
		},
		need: []string{"github.com/aws/aws-sdk-go-v2/service/dynamodb"},
	},
	{
		name: "pgstore", store: "idem/pgstore", main: constant(pgMain),
		forbid: []string{"github.com/redis/go-redis", "github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/aws/aws-sdk-go-v2/service/s3", "go.opentelemetry.io"},
		need:   []string{"github.com/jackc/pgx/v5"},
	},
	{
		// A function of the user's own on the worker's contract
		// (worker.FromEnv): the results bucket's S3 client and the Lambda
		// client that reads the function's event source mappings at
		// start-up (docs/deploy.md), but no other store's driver (their
		// openers are their stores' modules').
		name: "worker", store: "worker", main: constant(workerMain),
		forbid: []string{
			"github.com/jackc/pgx", "github.com/redis/go-redis",
			"github.com/aws/aws-sdk-go-v2/service/secretsmanager",
			"github.com/gowebpki/jcs", "go.opentelemetry.io", "golang.org/x/mod",
		},
		need: []string{"github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/aws/aws-sdk-go-v2/service/s3", "github.com/aws/aws-sdk-go-v2/service/lambda"},
	},
	{
		name: "redisstore", store: "idem/redisstore", main: constant(redisMain),
		forbid: []string{"github.com/jackc/pgx", "github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/aws/aws-sdk-go-v2/service/s3", "go.opentelemetry.io"},
		need:   []string{"github.com/redis/go-redis/v9"},
	},
}

// TestModuleProxy builds a module proxy of the release (or of the working
// tree) and depends on it as a user does: GOWORK=off, GOPROXY=file://…
// before the usual proxies, no replace directive.
func TestModuleProxy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short skips the module-proxy proof (about 30 s with warm caches)")
	}
	start := time.Now()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	src, err := release.Choose(root, os.Getenv(release.ProofVersionEnv))
	if err != nil {
		t.Fatal(err)
	}
	built, err := release.BuildProxy(root, src, t.TempDir())
	if err != nil {
		t.Fatalf("the module proxy of %s: %v", src.Describe(), err)
	}
	t.Logf("proving %s: %d modules served from %s", src.Describe(), len(built.Modules), built.Dir)
	v := built.Version

	licence, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range built.Modules {
		if got := zipFile(t, built.File(m, "zip"), m.Path+"@"+v+"/LICENSE"); !bytes.Equal(got, licence) {
			t.Errorf("%s@%s's zip holds no copy of LICENSE (%d bytes of LICENSE): pkg.go.dev would show no docs", m.Path, v, len(got))
		}
	}

	env := newGoEnv(t, built)
	t.Run("users", func(t *testing.T) {
		for _, u := range users {
			t.Run(u.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				write(t, filepath.Join(dir, "go.mod"), "module example.com/user\n\ngo 1.26.0\n")
				env.run(t, dir, "get", repo.Module+"@"+v, repo.Module+"/"+u.store+"@"+v)
				write(t, filepath.Join(dir, "main.go"), u.main(t, root))
				write(t, filepath.Join(dir, "main_test.go"), userTest)
				env.run(t, dir, "mod", "tidy")
				checkGoMod(t, dir, v, repo.Module, repo.Module+"/"+u.store)
				env.run(t, dir, "build", "-o", os.DevNull, ".")
				env.run(t, dir, "test", "-count=1", ".")
				graph := env.run(t, dir, "mod", "graph")
				for _, line := range strings.Split(graph, "\n") {
					fields := strings.Fields(line)
					for _, bad := range u.forbid {
						if len(fields) == 2 && strings.HasPrefix(fields[1], bad) {
							t.Errorf("the %s user's module graph holds %s: %s", u.name, bad, line)
						}
					}
				}
				for _, need := range u.need {
					if !strings.Contains(graph, " "+need+"@") {
						t.Errorf("the %s user's module graph lacks %s:\n%s", u.name, need, graph)
					}
				}
				// The history check's checker is a requirement of the
				// root module, but only idem/idemtest/linearize imports
				// it, and no package a user imports (nor its tests) does:
				// the user's go.sum holds no line of it, and nothing of it
				// is downloaded.
				sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(sum), porcupine) {
					t.Errorf("the %s user's go.sum holds %s, which only the history check needs:\n%s", u.name, porcupine, sum)
				}
			})
		}
		t.Run("a store of one's own", func(t *testing.T) {
			t.Parallel()
			// A store written outside the repository, as a store author
			// tests it: idemtest's conformance suite and the history
			// check (idemtest/linearize), from the root module alone.
			dir := t.TempDir()
			write(t, filepath.Join(dir, "go.mod"), "module example.com/mystore\n\ngo 1.26.0\n")
			env.run(t, dir, "get", repo.Module+"@"+v)
			write(t, filepath.Join(dir, "store.go"), ownStore)
			write(t, filepath.Join(dir, "store_test.go"), ownStoreTest)
			env.run(t, dir, "mod", "tidy")
			checkGoMod(t, dir, v, repo.Module)
			out := env.run(t, dir, "test", "-count=1", "-v", "-run", "TestConformance|TestLinearizable", ".")
			if !strings.Contains(out, "--- PASS: TestLinearizable") || !strings.Contains(out, ": linearizable;") {
				t.Errorf("the store's history check did not pass:\n%s", out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, ": linearizable;") {
					t.Logf("the outside store's check: %s", strings.TrimSpace(line))
				}
			}
			if graph := env.run(t, dir, "mod", "graph"); !strings.Contains(graph, " "+porcupine+"@") {
				t.Errorf("the store author's module graph lacks %s:\n%s", porcupine, graph)
			}
		})
		t.Run("go install cmd/idemq", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir() // in no module
			env.run(t, dir, "install", repo.Module+"/cmd/idemq@"+v)
			cmd := exec.Command(filepath.Join(env.bin, "idemq"), "--help")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "usage: idemq") {
				t.Errorf("idemq --help: %v\n%s", err, out)
			}
		})
	})

	// What the go command downloaded is what the proxy served.
	downloaded := 0
	for _, m := range built.Modules {
		esc, err := module.EscapePath(m.Path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(env.modcache, "cache", "download", filepath.FromSlash(esc), "@v", v+".zip"))
		if err != nil {
			continue // not needed by these users
		}
		downloaded++
		want, err := os.ReadFile(built.File(m, "zip"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the go command downloaded another %s@%s than the proxy's", m.Path, v)
		}
	}
	if downloaded < 7 {
		t.Errorf("the go command downloaded %d of the proxy's modules, want at least the root, three stores, s3blob, worker and cmd/idemq", downloaded)
	}
	t.Logf("the proof of %s took %s", v, time.Since(start).Round(time.Second))
}

// porcupine is the history check's checker (idem/idemtest/linearize).
const porcupine = "github.com/anishathalye/porcupine"

// goEnv runs the go command as a user outside the repository does, with
// the release's proxy first.
type goEnv struct {
	env           []string
	modcache, bin string
}

// newGoEnv makes the environment: a module cache of its own (the
// release's versions must not land in the shared one, where another run's
// would be taken for them), the shared one's downloads as a proxy after
// the release's (warm, and offline for what it holds), then the usual
// proxies; no checksum database for the repository's modules, which no
// public proxy has yet.
func newGoEnv(t *testing.T, built release.Built) *goEnv {
	t.Helper()
	shared := goenv(t, "GOMODCACHE")
	upstream := goenv(t, "GOPROXY")
	proxies := []string{"file://" + filepath.ToSlash(built.Dir), "file://" + filepath.ToSlash(filepath.Join(shared, "cache", "download"))}
	if upstream != "" && upstream != "off" {
		proxies = append(proxies, upstream)
	}
	e := &goEnv{modcache: t.TempDir(), bin: t.TempDir()}
	e.env = append(os.Environ(),
		"GOWORK=off",
		"GOPROXY="+strings.Join(proxies, ","),
		"GONOSUMDB="+repo.Module,
		"GOMODCACHE="+e.modcache,
		"GOBIN="+e.bin,
		"GOTOOLCHAIN=local",
		// -modcacherw: the temporary cache can be removed; -trimpath: the
		// build cache's entries do not depend on where that cache is, so a
		// second run compiles only what changed.
		"GOFLAGS=-mod=mod -modcacherw -trimpath",
		// With -trimpath, the packages compile as the worker's bootstrap
		// does (internal/rie.BuildFlags), which a test run builds anyway:
		// the proof compiles only what the users' graphs add.
		"CGO_ENABLED=0",
	)
	return e
}

// run runs go args in dir and returns its standard output; a failure
// fails the test with the command's output and a hint.
func (e *goEnv) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s%s\n(it needs the module proxy, GOPROXY, for what the module cache lacks)", strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func goenv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// checkGoMod fails the test unless the user's go.mod has no replace
// directive and requires each of paths at version.
func checkGoMod(t *testing.T, dir, version string, paths ...string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Replace) > 0 {
		t.Errorf("the user's go.mod has a replace directive:\n%s", data)
	}
	for _, p := range paths {
		found := false
		for _, r := range f.Require {
			found = found || (r.Mod.Path == p && r.Mod.Version == version)
		}
		if !found {
			t.Errorf("the user's go.mod does not require %s@%s:\n%s", p, version, data)
		}
	}
}

// zipFile returns the file name in the zip at path, nil when it has none.
func zipFile(t *testing.T, path, name string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return nil
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
