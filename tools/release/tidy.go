package release

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// Tidy runs go mod tidy on the module m of the workspace ws in the
// repository at root the way it runs outside the workspace (GOWORK=off),
// the workspace's other modules read from the working tree. No go.mod
// holds a replace directive, so it works on copies: go.mod and go.sum are
// copied to a temporary directory, a replace directive per other module
// is added to the copy, go mod tidy -modfile tidies it, and the directives
// are dropped again. It returns the files that differ from the tidied
// ones (go.mod, go.sum); with write it writes the tidied ones in their
// place. go.sum never holds the workspace's own modules: a directory
// replacement has no checksum.
func Tidy(root string, ws Workspace, m Module, write bool) ([]string, error) {
	dir := filepath.Join(root, filepath.FromSlash(m.Dir))
	tmp, err := os.MkdirTemp("", "idemq-tidy-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	gosum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := modfile.Parse(m.File("go.mod"), gomod, nil)
	if err != nil {
		return nil, err
	}
	if err := noDirectives(m.File("go.mod"), f); err != nil {
		return nil, err
	}
	for _, o := range ws {
		if o.Path == m.Path {
			continue
		}
		if err := f.AddReplace(o.Path, "", filepath.Join(root, filepath.FromSlash(o.Dir)), ""); err != nil {
			return nil, err
		}
	}
	withReplace, err := f.Format()
	if err != nil {
		return nil, err
	}
	tmpMod, tmpSum := filepath.Join(tmp, "go.mod"), filepath.Join(tmp, "go.sum")
	if err := os.WriteFile(tmpMod, withReplace, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(tmpSum, gosum, 0o644); err != nil {
		return nil, err
	}

	cmd := exec.Command("go", "mod", "tidy", "-modfile="+tmpMod)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go mod tidy in %s: %v\n%s", m.Dir, err, strings.TrimSpace(stderr.String()))
	}

	tidied, err := os.ReadFile(tmpMod)
	if err != nil {
		return nil, err
	}
	tf, err := modfile.Parse(tmpMod, tidied, nil)
	if err != nil {
		return nil, err
	}
	for _, o := range ws {
		if o.Path != m.Path {
			if err := tf.DropReplace(o.Path, ""); err != nil {
				return nil, err
			}
		}
	}
	tf.Cleanup()
	tidiedMod, err := tf.Format()
	if err != nil {
		return nil, err
	}
	tidiedSum, err := os.ReadFile(tmpSum)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	var differ []string
	for _, c := range []struct {
		name     string
		old, new []byte
	}{{"go.mod", gomod, tidiedMod}, {"go.sum", gosum, tidiedSum}} {
		if bytes.Equal(c.old, c.new) {
			continue
		}
		differ = append(differ, m.File(c.name))
		if !write {
			continue
		}
		target := filepath.Join(dir, c.name)
		if len(c.new) == 0 && c.name == "go.sum" {
			if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return differ, err
			}
			continue
		}
		if err := os.WriteFile(target, c.new, 0o644); err != nil {
			return differ, err
		}
	}
	return differ, nil
}
