package idemqcdk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckBootstrapArch checks the ELF header check on the executables Go
// builds for each of Lambda's architectures, and that a script (which
// provided.al2023 runs too) and a file that is no executable are told
// apart.
func TestCheckBootstrapArch(t *testing.T) {
	mod := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/tiny\n\ngo 1.26\n", "main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	built := map[string]string{}
	for _, a := range architectures {
		dir := t.TempDir()
		if err := (&GoBuild{ModuleDir: mod, Package: ".", Arch: a.goarch}).Build(dir); err != nil {
			t.Fatal(err)
		}
		built[a.name] = dir
	}
	for name, a := range architectures {
		for other, dir := range built {
			err := checkBootstrapArch(dir, a)
			if (other == name) != (err == nil) {
				t.Errorf("a bootstrap built for %s, checked for %s: %v", other, name, err)
			}
			if err != nil && !strings.Contains(err.Error(), "GOARCH="+a.goarch) {
				t.Errorf("the message does not say how to build for %s: %v", name, err)
			}
		}
	}
	script := t.TempDir()
	if err := os.WriteFile(filepath.Join(script, "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkBootstrapArch(script, architectures["arm64"]); err != nil {
		t.Errorf("a script: %v", err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "bootstrap"), []byte("\x7fELF truncated"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkBootstrapArch(broken, architectures["arm64"]); err == nil || errors.Is(err, errNotELF) {
		t.Errorf("a truncated ELF file: %v, want an error", err)
	}
}
