package rie_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/idemq/idemq/internal/rie"
)

// TestBootstrapEnv checks that the shared worker BootstrapEnv names is
// taken when it is an executable for this machine, and refused with a
// clear error otherwise, without building anything.
func TestBootstrapEnv(t *testing.T) {
	self, err := os.Executable() // an executable ELF file for this machine
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	write(t, script, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	write(t, plain, []byte("not run"), 0o644)
	other := filepath.Join(dir, "other")
	write(t, other, elfHeader(otherMachine()), 0o755)

	for _, c := range []struct {
		path, want string // want: in the error; "" for none
	}{
		{self, ""},
		{"bin/test/bootstrap", "not an absolute path"},
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "not an executable file"},
		{plain, "not an executable file"},
		{script, "not an ELF executable"},
		{other, "not for this machine (" + runtime.GOARCH + ")"},
	} {
		t.Setenv(rie.BootstrapEnv, c.path)
		// The root is not a repository: a build would fail.
		got, err := rie.Bootstrap(context.Background(), dir, dir)
		switch {
		case c.want == "" && (err != nil || got != self):
			t.Errorf("%s=%s: %q, %v; want it taken", rie.BootstrapEnv, c.path, got, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), rie.BootstrapEnv)):
			t.Errorf("%s=%s: %v; want an error naming the variable and saying %q", rie.BootstrapEnv, c.path, err, c.want)
		}
	}
}

// TestBuildFlagsAreTheMakefiles checks that the tests build the worker
// with make build-lambda's flags, which make test's shared build uses: the
// same flags compile the same packages, which the build cache then holds
// once.
func TestBuildFlagsAreTheMakefiles(t *testing.T) {
	t.Parallel()
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, f := range rie.BuildFlags() {
		if strings.Contains(f, " ") {
			f = "'" + f + "'"
		}
		quoted = append(quoted, f)
	}
	want := "LAMBDA_BUILD_FLAGS := " + strings.Join(quoted, " ") + "\n"
	if !strings.Contains(string(makefile), want) {
		t.Errorf("the Makefile has no line %q: the tests' builds of the worker and make test's would compile it twice", want)
	}
}

// otherMachine is an ELF machine of an architecture a bootstrap is built
// for, not this one's.
func otherMachine() uint16 {
	const x8664, aarch64 = 62, 183
	if runtime.GOARCH == "arm64" {
		return x8664
	}
	return aarch64
}

// elfHeader is a 64-bit little-endian ELF executable's header for machine,
// with no sections: what debug/elf needs to read its machine.
func elfHeader(machine uint16) []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 2, 1, 1               // 64-bit, little-endian, version 1
	binary.LittleEndian.PutUint16(h[16:], 2) // ET_EXEC
	binary.LittleEndian.PutUint16(h[18:], machine)
	binary.LittleEndian.PutUint32(h[20:], 1)  // version
	binary.LittleEndian.PutUint16(h[52:], 64) // header size
	return h
}

func write(t *testing.T, name string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, data, perm); err != nil {
		t.Fatal(err)
	}
}
