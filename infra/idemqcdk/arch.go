package idemqcdk

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
)

// architecture is a Lambda architecture and what a bootstrap for it is.
type architecture struct {
	name    string      // Lambda's: "arm64" or "x86_64"
	goarch  string      // Go's: "arm64" or "amd64"
	machine elf.Machine // the ELF header's
	// others are how a name (a layer's) may say another architecture.
	others []string
}

// architectures are the architectures Lambda runs, by Lambda's name.
var architectures = map[string]architecture{
	"arm64":  {name: "arm64", goarch: "arm64", machine: elf.EM_AARCH64, others: []string{"amd64", "x86_64", "x86-64"}},
	"x86_64": {name: "x86_64", goarch: "amd64", machine: elf.EM_X86_64, others: []string{"arm64", "aarch64"}},
}

// lambdaArchitecture is a as the CDK spells it.
func (a architecture) lambdaArchitecture() awslambda.Architecture {
	if a.name == "x86_64" {
		return awslambda.Architecture_X86_64()
	}
	return awslambda.Architecture_ARM_64()
}

// resolveArchitecture is a, or arm64 when a is nil; an architecture Lambda
// does not run (awslambda.Architecture_Custom) is refused.
func resolveArchitecture(a awslambda.Architecture, label func(field string) string) (architecture, error) {
	if a == nil {
		return architectures["arm64"], nil
	}
	name := *a.Name()
	arch, ok := architectures[name]
	if !ok {
		return architecture{}, &SettingError{Field: "Architecture", Msg: fmt.Sprintf(
			"%s %q is not one Lambda runs; want awslambda.Architecture_ARM_64() or awslambda.Architecture_X86_64()", label("Architecture"), name)}
	}
	return arch, nil
}

// goArchitecture is the architecture whose GOARCH is goarch.
func goArchitecture(goarch string) (architecture, error) {
	for _, a := range architectures {
		if a.goarch == goarch {
			return a, nil
		}
	}
	return architecture{}, fmt.Errorf("idemqcdk: GOARCH %q is not one Lambda runs; want arm64 or amd64", goarch)
}

// errNotELF says a bootstrap is not an ELF file: a script, which
// provided.al2023 runs as well, and whose architecture is none.
var errNotELF = errors.New("not an ELF file")

// bootstrapMachine is the ELF machine of the executable at path, or
// errNotELF.
func bootstrapMachine(path string) (elf.Machine, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != elf.ELFMAG {
		return 0, errNotELF
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return ef.Machine, nil
}

// checkBootstrapArch refuses a bootstrap in dir that is an executable for
// another architecture than arch: Lambda would fail every start-up with
// an exec format error. A bootstrap that is not an ELF file (a script) is
// accepted.
func checkBootstrapArch(dir string, arch architecture) error {
	path := filepath.Join(dir, "bootstrap")
	m, err := bootstrapMachine(path)
	switch {
	case errors.Is(err, errNotELF):
		return nil
	case err != nil:
		return err
	case m != arch.machine:
		return fmt.Errorf("%s is an executable for %v, but the function runs on %s (%v): build it with GOARCH=%s, or set the function's architecture to match",
			path, m, arch.name, arch.machine, arch.goarch)
	}
	return nil
}

// checkCodeArch refuses code that is a folder holding a bootstrap built
// for another architecture than arch (GoCode's, or a Code_FromAsset
// folder); other code (a zip, an S3 object, an image) is not read.
func checkCodeArch(code awslambda.Code, arch architecture, label func(field string) string) error {
	asset, ok := code.(awslambda.AssetCode)
	if !ok || asset.Path() == nil {
		return nil
	}
	dir := *asset.Path()
	if st, err := os.Stat(filepath.Join(dir, "bootstrap")); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	if err := checkBootstrapArch(dir, arch); err != nil {
		return &SettingError{Field: "Architecture", Msg: fmt.Sprintf("%s %s does not match the function's code", label("Architecture"), arch.name), Err: err}
	}
	return nil
}
