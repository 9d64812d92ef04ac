package idemqcdk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// GoCode is the function code built for arm64 from the Go main package
// pkg (e.g. "./cmd/worker") of the module in moduleDir, a path relative to
// the directory the CDK app runs in. The package is built at once, by
// GoBuild.BuildDir, into a folder holding the executable bootstrap and
// nothing else, and that folder is the asset: its hash is the
// executable's, so the function is redeployed when the code that goes into
// it changes, and only then. Every cdk command that runs the app stages
// that folder, bundling or not, so none can package the module's own
// folder. It panics if the build fails, with go build's message. For
// x86_64, use GoBuild{Arch: "amd64"}.Code.
func GoCode(moduleDir, pkg string) awslambda.AssetCode {
	code, err := (&GoBuild{ModuleDir: moduleDir, Package: pkg}).Code()
	if err != nil {
		panic(err)
	}
	return code
}

// GoBuild builds a Go main package into the executable named bootstrap that
// Lambda's provided.al2023 runtime runs, with the go command of this
// machine: no Docker.
type GoBuild struct {
	// ModuleDir is the directory go build runs in: the module holding
	// Package.
	ModuleDir string
	// Package is the main package to build, relative to ModuleDir, e.g.
	// "./lambda".
	Package string
	// Arch is the GOARCH, "arm64" or "amd64" (Lambda's x86_64), which must
	// match the function's architecture: Build checks the executable's ELF
	// header for it, and NewWorker checks it against
	// WorkerProps.Architecture. Defaults to "arm64".
	Arch string
}

// Code builds the package (BuildDir) and returns the folder as the
// function's code.
func (b *GoBuild) Code() (awslambda.AssetCode, error) {
	dir, err := b.BuildDir()
	if err != nil {
		return nil, err
	}
	return awslambda.Code_FromAsset(jsii.String(dir), nil), nil
}

// Build runs GOOS=linux GOARCH=Arch CGO_ENABLED=0 go build -tags
// lambda.norpc, writing dir/bootstrap, and checks that what it wrote is an
// executable for Arch (its ELF header's machine): an environment that
// overrides the build's (a go.env, a toolchain wrapper) could make
// another. The flags make the output depend on the sources only
// (-trimpath, -buildvcs=false), so an unchanged module builds the same
// bytes.
func (b *GoBuild) Build(dir string) error {
	arch := or(b.Arch, "arm64")
	want, err := goArchitecture(arch)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-tags", "lambda.norpc",
		"-ldflags", "-s -w", "-o", filepath.Join(dir, "bootstrap"), b.Package)
	cmd.Dir = b.ModuleDir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("idemqcdk: GOOS=linux GOARCH=%s go build %s in %s: %w\n%s",
			arch, b.Package, b.ModuleDir, err, strings.TrimSpace(string(out)))
	}
	m, err := bootstrapMachine(filepath.Join(dir, "bootstrap"))
	if err != nil {
		return fmt.Errorf("idemqcdk: go build %s for GOARCH=%s: the bootstrap it wrote: %w", b.Package, arch, err)
	}
	if m != want.machine {
		return fmt.Errorf("idemqcdk: go build %s for GOARCH=%s wrote an executable for %v, not %v: check the go command's environment (go env GOARCH, GOFLAGS, a toolchain wrapper)",
			b.Package, arch, m, want.machine)
	}
	return nil
}

// BuildDir builds the package and returns the folder holding its
// bootstrap and nothing else: idemq-bootstrap/ARCH-HASH under the system's
// temporary directory, HASH being the executable's SHA-256. The same bytes
// land in the same folder, so repeated synths reuse it rather than pile up
// copies.
func (b *GoBuild) BuildDir() (string, error) {
	root := filepath.Join(os.TempDir(), "idemq-bootstrap")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := b.Build(tmp); err != nil {
		return "", err
	}
	exe, err := os.ReadFile(filepath.Join(tmp, "bootstrap"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(exe)
	dir := filepath.Join(root, or(b.Arch, "arm64")+"-"+hex.EncodeToString(sum[:12]))
	if err := os.Rename(tmp, dir); err == nil || sameBootstrap(dir, exe) {
		return dir, nil
	}
	// A folder of that name holds something else: replace it.
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil && !sameBootstrap(dir, exe) {
		return "", fmt.Errorf("idemqcdk: stage the bootstrap in %s: %w", dir, err)
	}
	return dir, nil
}

// sameBootstrap reports whether dir holds exe as bootstrap and nothing
// else (another build of the same bytes got there first).
func sameBootstrap(dir string, exe []byte) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "bootstrap" {
		return false
	}
	got, err := os.ReadFile(filepath.Join(dir, "bootstrap"))
	return err == nil && bytes.Equal(got, exe)
}

// checkBootstrapDir accepts a folder holding an executable bootstrap and
// nothing else: the asset is the whole folder, so anything else in it
// would be deployed too.
func checkBootstrapDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", dir)
	}
	if err != nil {
		return err
	}
	var others []string
	found := false
	for _, e := range entries {
		if e.Name() == "bootstrap" && e.Type().IsRegular() {
			found = true
			continue
		}
		others = append(others, e.Name())
	}
	switch {
	case len(others) > 0:
		if len(others) > 3 {
			others = append(others[:3], "…")
		}
		return fmt.Errorf("%s holds %s besides bootstrap, which would be deployed with it; give a folder holding bootstrap alone", dir, strings.Join(others, ", "))
	case !found:
		return fmt.Errorf("%s holds no bootstrap executable", dir)
	}
	return nil
}
