package release

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// RootModule is the module path of the repository's root module.
const RootModule = "github.com/idemq/idemq"

// FindRoot returns the repository's root, the directory whose go.mod
// declares RootModule, searching from the working directory up.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modfile.ModulePath(data) == RootModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod declaring " + RootModule + " above the working directory")
		}
		dir = parent
	}
}
