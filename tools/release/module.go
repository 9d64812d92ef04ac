package release

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Unreleased are the directories of the workspace's modules that a release
// does not tag: the proofs and the benchmarks, this tool, and the example
// app (docs/deploy.md); nothing a user builds imports them.
// scripts/release-check.sh names the same.
var Unreleased = []string{"harness", "tools/release", "examples/existing-app"}

// Module is one module of the workspace.
type Module struct {
	// Dir is the module's directory relative to the repository's root,
	// slash-separated: "." for the root module, "idem/dynamostore" for a
	// nested one.
	Dir string
	// Path is the module path its go.mod declares.
	Path string
}

// Released reports whether a release tags the module.
func (m Module) Released() bool {
	for _, d := range Unreleased {
		if m.Dir == d {
			return false
		}
	}
	return true
}

// Tag is the module's tag for version: version itself for the root
// module, Dir/version for a nested one (Go finds
// github.com/idemq/idemq/idem/dynamostore@v0.2.0 under the tag
// idem/dynamostore/v0.2.0).
func (m Module) Tag(version string) string {
	if m.Dir == "." {
		return version
	}
	return m.Dir + "/" + version
}

// File is the path of a file of the module, relative to the repository's
// root: File("go.mod") of idem/dynamostore is idem/dynamostore/go.mod.
func (m Module) File(name string) string {
	return path.Join(m.Dir, name)
}

// Workspace is the repository's modules as go.work lists them, the root
// first, then by directory.
type Workspace []Module

// ReadWorkspace reads the modules go.work lists and the path each one's
// go.mod declares. read reads a file by its slash-separated path relative
// to the repository's root: ReadDir reads a working tree, Commit.Read a
// commit.
func ReadWorkspace(read func(name string) ([]byte, error)) (Workspace, error) {
	data, err := read("go.work")
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return nil, err
	}
	var ws Workspace
	seen := map[string]bool{}
	for _, u := range wf.Use {
		dir := path.Clean(filepath.ToSlash(u.Path))
		if path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") {
			return nil, fmt.Errorf("go.work: use %s: a module outside the repository", u.Path)
		}
		if seen[dir] {
			continue
		}
		seen[dir] = true
		gomod, err := read(path.Join(dir, "go.mod"))
		if err != nil {
			return nil, fmt.Errorf("go.work uses %s: %w", u.Path, err)
		}
		modPath := modfile.ModulePath(gomod)
		if modPath == "" {
			return nil, fmt.Errorf("%s: no module line", path.Join(dir, "go.mod"))
		}
		ws = append(ws, Module{Dir: dir, Path: modPath})
	}
	sort.Slice(ws, func(i, j int) bool {
		if (ws[i].Dir == ".") != (ws[j].Dir == ".") {
			return ws[i].Dir == "."
		}
		return ws[i].Dir < ws[j].Dir
	})
	if len(ws) == 0 || ws[0].Dir != "." {
		return nil, fmt.Errorf("go.work does not use the repository's root module (.)")
	}
	return ws, nil
}

// ReadDir returns a reader of the files under the directory root, for
// ReadWorkspace.
func ReadDir(root string) func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	}
}

// Paths returns the set of the workspace's module paths.
func (ws Workspace) Paths() map[string]bool {
	paths := make(map[string]bool, len(ws))
	for _, m := range ws {
		paths[m.Path] = true
	}
	return paths
}

// Released returns the modules a release tags.
func (ws Workspace) Released() Workspace {
	var out Workspace
	for _, m := range ws {
		if m.Released() {
			out = append(out, m)
		}
	}
	return out
}

// Root is the repository's root module.
func (ws Workspace) Root() Module { return ws[0] }
