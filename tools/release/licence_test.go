package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLicences(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := Workspace{{".", "example.com/m"}, {"store", "example.com/m/store"}, {"harness", "example.com/m/harness"}}
	for _, d := range []string{"store", "harness"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	put := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("LICENSE", "the licence\n")
	if err := Licences(root, ws); err == nil || !strings.Contains(err.Error(), "store/LICENSE is missing") {
		t.Errorf("no copy: %v", err)
	}
	put("store/LICENSE", "another licence\n")
	if err := Licences(root, ws); err == nil || !strings.Contains(err.Error(), "store/LICENSE differs") {
		t.Errorf("another copy: %v", err)
	}
	put("store/LICENSE", "the licence\n")
	if err := Licences(root, ws); err != nil {
		t.Errorf("a copy (none in the unreleased harness): %v", err)
	}
}
