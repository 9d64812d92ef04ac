package release

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// TestOnly checks that no released module of the workspace at root
// requires a sibling that only its tests import. A user's go mod tidy
// reads the go.mod of every module a dependency requires, tests or not,
// so such a requirement is one more module for the user to resolve,
// carrying whatever it requires. It asks go list, in the workspace, which
// modules provide the packages each module's packages build with (tests
// left out).
func TestOnly(root string, ws Workspace) error {
	var errs []error
	for _, m := range ws.Released() {
		dir := filepath.Join(root, filepath.FromSlash(m.Dir))
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return err
		}
		reqs, err := Requirements(m.File("go.mod"), data, ws.Paths())
		if err != nil {
			return err
		}
		if len(reqs) == 0 {
			continue
		}
		cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go list -deps ./... in %s: %v\n%s", m.Dir, err, strings.TrimSpace(stderr.String()))
		}
		used := map[string]bool{}
		for _, p := range strings.Fields(stdout.String()) {
			used[p] = true
		}
		var only []string
		for p := range reqs {
			if !used[p] {
				only = append(only, p)
			}
		}
		sort.Strings(only)
		for _, p := range only {
			errs = append(errs, fmt.Errorf("%s requires %s, which only its tests use: a user's go mod tidy would have to resolve it (put what the tests need in a module the package already requires)", m.File("go.mod"), p))
		}
	}
	return errors.Join(errs...)
}
