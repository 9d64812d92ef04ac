package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestOnly finds a released module requiring a sibling that only its
// tests import, as idem/dynamostore required internal/dynamotest.
func TestTestOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.26.0\n",
		"m.go":            "package m\n\n// A is the API.\nfunc A() {}\n",
		"kit/go.mod":      "module example.com/m/kit\n\ngo 1.26.0\n",
		"kit/kit.go":      "package kit\n\n// K helps tests.\nfunc K() {}\n",
		"store/go.mod":    "module example.com/m/store\n\ngo 1.26.0\n\nrequire (\n\texample.com/m " + zeroVersion + "\n\texample.com/m/kit " + zeroVersion + "\n)\n",
		"store/store.go":  "package store\n\nimport \"example.com/m\"\n\n// S is the store.\nfunc S() { m.A() }\n",
		"store/s_test.go": "package store\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/kit\"\n)\n\nfunc TestS(t *testing.T) { kit.K(); S() }\n",
		"go.work":         "go 1.26.0\n\nuse (\n\t.\n\t./kit\n\t./store\n)\n\nreplace (\n\texample.com/m " + zeroVersion + " => .\n\texample.com/m/kit " + zeroVersion + " => ./kit\n)\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := ReadWorkspace(ReadDir(root))
	if err != nil {
		t.Fatal(err)
	}
	err = TestOnly(root, ws)
	if err == nil || !strings.Contains(err.Error(), "store/go.mod requires example.com/m/kit, which only its tests use") || strings.Contains(err.Error(), "requires example.com/m,") {
		t.Errorf("TestOnly = %v; want store's requirement of kit, and only it", err)
	}
}
