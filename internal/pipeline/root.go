package pipeline

import (
	"errors"
	"os"
	"path/filepath"
)

// Root finds the repository's root (the directory holding go.mod) from the
// working directory up.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("pipeline: no go.mod above the working directory")
		}
		dir = parent
	}
}
