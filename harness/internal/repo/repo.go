// Package repo finds the repository the harness runs in.
package repo

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Module is the library's module path: the repository's root go.mod
// declares it.
const Module = "github.com/idemq/idemq"

// Root finds the repository's root (the directory whose go.mod declares
// Module) from the working directory up, so that the harness module,
// nested in it, finds lambda/, tools/ and results/.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if declares(filepath.Join(dir, "go.mod"), Module) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repo: no go.mod declaring " + Module + " above the working directory")
		}
		dir = parent
	}
}

// declares reports whether the go.mod at path declares module mod.
func declares(path, mod string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == mod
		}
	}
	return false
}
