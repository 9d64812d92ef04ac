package release

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Licences checks that every released module's directory holds a LICENSE
// identical to the repository's: pkg.go.dev shows a module's docs only
// when its zip holds a licence it recognises, and a nested module's zip
// holds the files under its directory (the go command adds the root's
// LICENSE when it builds the zip from git itself, but no other builder of
// zips must be trusted to).
func Licences(root string, ws Workspace) error {
	want, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range ws.Released() {
		if m.Dir == "." {
			continue
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File("LICENSE"))))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("%s is missing: cp LICENSE %s", m.File("LICENSE"), m.File("LICENSE")))
		case err != nil:
			errs = append(errs, err)
		case !bytes.Equal(got, want):
			errs = append(errs, fmt.Errorf("%s differs from LICENSE: cp LICENSE %s", m.File("LICENSE"), m.File("LICENSE")))
		}
	}
	return errors.Join(errs...)
}
