package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goroot is the Go installation's root, as the go command reports it.
var goroot = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
})

// Opticks returns Isaac Newton's Opticks (567,198 bytes of English
// prose), which ships with Go as $GOROOT/src/testdata/Isaac.Newton-Opticks.txt:
// the text the compression of results is measured on. It fails the test
// when the file cannot be read.
func Opticks(t testing.TB) []byte {
	t.Helper()
	root, err := goroot()
	if err != nil {
		t.Fatalf("testenv: go env GOROOT: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(root, "src", "testdata", "Isaac.Newton-Opticks.txt"))
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return b
}
