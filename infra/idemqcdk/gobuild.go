package idemqcdk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	"github.com/aws/jsii-runtime-go"
)

// GoCode is the function code built from the Go main package pkg (e.g.
// "./lambda") of the module in moduleDir, by GoBuild at synth. The asset's
// hash is the built executable's, so a change anywhere in the module
// redeploys the function, and an unchanged build does not.
func GoCode(moduleDir, pkg string) awslambda.AssetCode {
	return awslambda.Code_FromAsset(jsii.String(moduleDir), &awss3assets.AssetOptions{
		AssetHashType: awscdk.AssetHashType_OUTPUT,
		Bundling: &awscdk.BundlingOptions{
			// The type requires an image; it is never pulled, because
			// GoBuild never declines to build.
			Image: awscdk.DockerImage_FromRegistry(jsii.String("public.ecr.aws/docker/library/golang")),
			Local: &GoBuild{ModuleDir: moduleDir, Package: pkg},
		},
	})
}

// GoBuild builds a Go main package into the executable named bootstrap that
// Lambda's provided.al2023 runtime runs, with the go command of this
// machine: no Docker. It implements awscdk.ILocalBundling.
type GoBuild struct {
	// ModuleDir is the directory go build runs in: the module holding
	// Package.
	ModuleDir string
	// Package is the main package to build, relative to ModuleDir, e.g.
	// "./lambda".
	Package string
	// Arch is the GOARCH, which must match the function's architecture.
	// Defaults to "arm64".
	Arch string
}

// TryBundle builds outputDir/bootstrap. It never declines (CDK would then
// try Docker): a failed build panics, which fails the synth with go build's
// own message.
func (b *GoBuild) TryBundle(outputDir *string, _ *awscdk.BundlingOptions) *bool {
	if err := b.Build(*outputDir); err != nil {
		panic(err)
	}
	return jsii.Bool(true)
}

// Build runs GOOS=linux GOARCH=Arch CGO_ENABLED=0 go build -tags
// lambda.norpc, writing dir/bootstrap. The flags make the output depend on
// the sources only (-trimpath, -buildvcs=false), so an unchanged module
// builds the same bytes.
func (b *GoBuild) Build(dir string) error {
	arch := or(b.Arch, "arm64")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-tags", "lambda.norpc",
		"-ldflags", "-s -w", "-o", filepath.Join(dir, "bootstrap"), b.Package)
	cmd.Dir = b.ModuleDir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("idemqcdk: GOOS=linux GOARCH=%s go build %s in %s: %w\n%s",
			arch, b.Package, b.ModuleDir, err, strings.TrimSpace(string(out)))
	}
	return nil
}
