package deploylocal

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// QEMUHint says how to get the emulator an arm64 bootstrap runs under on
// another machine.
const QEMUHint = "an arm64 bootstrap needs qemu-aarch64-static on this machine: run `make deploy-local` (it installs Debian's qemu-user-static) or apt-get install qemu-user-static"

// fetchAsset downloads the function's asset zip from moto's S3 (path
// style), checks that it holds bootstrap alone, built for arch ("arm64" or
// "x86_64"), and writes it into dir. It returns the path the emulator is
// to run: the bootstrap itself, or for an arm64 bootstrap on another
// machine, a script that runs it under qemu-aarch64-static.
func fetchAsset(ctx context.Context, endpoint, bucket, key, arch, dir string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/"+bucket+"/"+key, nil)
	if err != nil {
		return "", err
	}
	// Signed, as the bootstrap bucket's policy lets no anonymous caller
	// read.
	const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	creds := aws.Credentials{AccessKeyID: "idemqlocal", SecretAccessKey: "idemqlocal"}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, emptySHA256, "s3", Region, time.Now()); err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("deploylocal: download the asset: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("deploylocal: download the asset s3://%s/%s: %s %v", bucket, key, resp.Status, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", fmt.Errorf("deploylocal: the asset s3://%s/%s is no zip: %w", bucket, key, err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if len(names) != 1 || names[0] != "bootstrap" {
		return "", fmt.Errorf("deploylocal: the asset (%d bytes) holds %d files %.10q, want bootstrap alone", len(body), len(names), names)
	}
	r, err := zr.File[0].Open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	exe := filepath.Join(dir, "bootstrap")
	f, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return runnable(exe, arch)
}

// machines are the ELF machine and GOARCH of each Lambda architecture.
var machines = map[string]struct {
	elf    elf.Machine
	goarch string
}{
	"arm64":  {elf.EM_AARCH64, "arm64"},
	"x86_64": {elf.EM_X86_64, "amd64"},
}

// runnable checks that exe is a static executable for arch, and returns
// how to run it here.
func runnable(exe, arch string) (string, error) {
	m, ok := machines[arch]
	if !ok {
		return "", fmt.Errorf("deploylocal: the template's architecture %q is none of Lambda's", arch)
	}
	f, err := elf.Open(exe)
	if err != nil {
		return "", fmt.Errorf("deploylocal: the asset's bootstrap: %w", err)
	}
	defer f.Close()
	if f.Machine != m.elf {
		return "", fmt.Errorf("deploylocal: the asset's bootstrap is for %v, but the function is %s", f.Machine, arch)
	}
	if runtime.GOARCH == m.goarch {
		return exe, nil
	}
	if m.goarch != "arm64" {
		return "", fmt.Errorf("deploylocal: cannot run a %s bootstrap on %s", arch, runtime.GOARCH)
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		return "", fmt.Errorf("deploylocal: %w; %s", err, QEMUHint)
	}
	script := filepath.Join(filepath.Dir(exe), "bootstrap-qemu")
	text := fmt.Sprintf("#!/bin/sh\nexec %s %s \"$@\"\n", qemu, exe)
	return script, os.WriteFile(script, []byte(text), 0o755)
}
