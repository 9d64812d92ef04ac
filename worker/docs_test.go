package worker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemq/idemq/internal/testenv"
)

// docsSection is the heading of docs/worker.md's section on this package.
const docsSection = "## Use the worker's settings in your own function"

// The example docs/worker.md shows builds against this package as it is.
func TestDocsExampleBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go build")
	}
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "worker.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), docsSection)
	if !ok {
		t.Fatalf("docs/worker.md has no section %q", docsSection)
	}
	_, code, ok := strings.Cut(section, "```go\n")
	if ok {
		code, _, ok = strings.Cut(code, "```")
	}
	if !ok || !strings.Contains(code, "worker.FromEnv(") {
		t.Fatalf("the section has no Go example calling worker.FromEnv")
	}
	// In the module (so that it builds against this package), in a
	// directory "./..." leaves out.
	dir, err := os.MkdirTemp(".", "_docexample")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	// With the test binary's flags (-race under make test): only the
	// example compiles, the rest is the test run's.
	args := append(append([]string{"build"}, testenv.GoFlags(t)...), "-o", os.DevNull, "./"+filepath.Base(dir))
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Errorf("docs/worker.md's example does not build: %v\n%s\n%s", err, out, code)
	}
}
