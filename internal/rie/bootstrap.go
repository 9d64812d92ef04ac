package rie

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// BootstrapEnv names the reference worker (lambda/) built once for a
// whole test run, for this machine, as Lambda runs it (BuildBootstrap):
// `make test` builds bin/test/bootstrap and sets it, and the RIE test,
// the consumer-mode test, the real pipeline and the benchmark's start-up
// run that file rather than each building its own. Unset, Bootstrap
// builds one.
const BootstrapEnv = "IDEMQ_TEST_BOOTSTRAP"

// BuildFlags are go build's flags for the worker as Lambda runs it, the
// flags of `make build-lambda` (with CGO_ENABLED=0 GOOS=linux): every
// build of lambda/ for a test or a run of the harness uses them, so that
// they share the build cache's compiled packages.
func BuildFlags() []string {
	return []string{"-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w"}
}

// BuildBootstrap builds the reference worker (lambda/ under root, the
// repository's root) for linux/arch into out, with BuildFlags and
// CGO_ENABLED=0: the executable Lambda's provided.al2023 runtime runs.
func BuildBootstrap(ctx context.Context, root, arch, out string) error {
	args := append([]string{"build"}, BuildFlags()...)
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", out, "./lambda")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("rie: build the worker for linux/%s (go build ./lambda in %s): %w\n%s", arch, root, err, msg)
	}
	return nil
}

// Bootstrap returns the reference worker for this machine: the file
// BootstrapEnv names when it is set (it must be an executable for this
// machine's architecture), else one BuildBootstrap builds into
// dir/bootstrap.
func Bootstrap(ctx context.Context, root, dir string) (string, error) {
	if path := os.Getenv(BootstrapEnv); path != "" {
		return path, checkBootstrap(path, runtime.GOARCH)
	}
	out := filepath.Join(dir, "bootstrap")
	return out, BuildBootstrap(ctx, root, runtime.GOARCH, out)
}

// machine is the ELF machine of a GOARCH a bootstrap is built for.
func machine(arch string) (elf.Machine, bool) {
	switch arch {
	case "amd64":
		return elf.EM_X86_64, true
	case "arm64":
		return elf.EM_AARCH64, true
	}
	return 0, false
}

// checkBootstrap accepts an executable ELF file for arch at path, with an
// error naming BootstrapEnv otherwise.
func checkBootstrap(path, arch string) error {
	fail := func(why string) error {
		return fmt.Errorf("rie: %s=%s: %s; unset it to build the worker, or run `make test-builds`", BootstrapEnv, path, why)
	}
	if !filepath.IsAbs(path) {
		return fail("not an absolute path")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(strings.TrimPrefix(err.Error(), "stat "+path+": "))
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fail("not an executable file")
	}
	f, err := elf.Open(path)
	if err != nil {
		return fail("not an ELF executable")
	}
	defer f.Close()
	if want, ok := machine(arch); ok && f.Machine != want {
		return fail(fmt.Sprintf("built for %v, not for this machine (%s)", f.Machine, arch))
	}
	return nil
}
