package idemqcdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// builtFor is the folder of the tiny module's bootstrap built for goarch.
func builtFor(t *testing.T, goarch string) string {
	t.Helper()
	dir, err := (&idemqcdk.GoBuild{ModuleDir: tinyModule(t, tinyMain), Package: ".", Arch: goarch}).BuildDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestArchitecture checks the architecture prop: arm64 by default, x86_64
// when asked, for the worker's and the front door's functions; code built
// for another machine is refused, naming Architecture, by NewWorker and by
// the stack (idemq:architecture, idemq:bootstrapDir).
func TestArchitecture(t *testing.T) {
	amd64, arm64 := builtFor(t, "amd64"), builtFor(t, "arm64")
	worker := func(arch awslambda.Architecture, dir string) *idemqcdk.Worker {
		stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
		return idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
			Code: awslambda.Code_FromAsset(jsii.String(dir), nil), Request: request.Identity{Namespace: "jobs"}, Architecture: arch, FrontDoor: true,
		})
	}
	for name, c := range map[string]struct {
		arch awslambda.Architecture
		dir  string
		want string
	}{
		"default, arm64 code":   {nil, arm64, "arm64"},
		"x86_64, amd64 code":    {awslambda.Architecture_X86_64(), amd64, "x86_64"},
		"x86_64, a script":      {awslambda.Architecture_X86_64(), prebuilt(t), "x86_64"},
		"arm64 given, arm64":    {awslambda.Architecture_ARM_64(), arm64, "arm64"},
		"default, a script too": {nil, prebuilt(t), "arm64"},
	} {
		t.Run(name, func(t *testing.T) {
			tpl := assertions.Template_FromStack(awscdk.Stack_Of(worker(c.arch, c.dir).Construct), nil)
			check(t, "both functions' architecture", func() {
				tpl.AllResourcesProperties(jsii.String("AWS::Lambda::Function"), obj{"Architectures": arr{c.want}})
			})
		})
	}
	for name, c := range map[string]struct {
		arch awslambda.Architecture
		dir  string
	}{
		"default (arm64), amd64 code":    {nil, amd64},
		"x86_64, arm64 code":             {awslambda.Architecture_X86_64(), arm64},
		"an architecture Lambda has not": {awslambda.Architecture_Custom(jsii.String("riscv64"), jsii.String("linux/riscv64")), arm64},
	} {
		t.Run(name, func(t *testing.T) {
			msg := refusal(t, worker(c.arch, c.dir).Construct)
			if !strings.Contains(msg, "Architecture") {
				t.Errorf("NewWorker: synth error %s, want it to name Architecture", msg)
			}
			t.Log(msg)
		})
	}

	// The stack: idemq:architecture.
	tpl := synth(t, map[string]any{"idemq:architecture": "x86_64", "idemq:bootstrapDir": amd64})
	check(t, "idemq:architecture x86_64", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{"Architectures": arr{"x86_64"}})
	})
	err := synthRefused(t, map[string]any{"idemq:bootstrapDir": amd64}, "Architecture")
	if !strings.Contains(err.Error(), "idemq:architecture") || !strings.Contains(err.Error(), "EM_X86_64") {
		t.Errorf("an amd64 bootstrap for the default architecture: %v; want it to name idemq:architecture and the machine", err)
	}
	err = synthRefused(t, map[string]any{"idemq:architecture": "amd64"}, "Architecture")
	if !strings.Contains(err.Error(), `"x86_64"`) {
		t.Errorf("idemq:architecture amd64 (Go's name): %v; want Lambda's names suggested", err)
	}
}

// TestGoBuildRefusesAnArchitectureLambdaHasNot checks GoBuild's Arch.
func TestGoBuildRefusesAnArchitectureLambdaHasNot(t *testing.T) {
	err := (&idemqcdk.GoBuild{ModuleDir: tinyModule(t, tinyMain), Package: ".", Arch: "386"}).Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `"386"`) {
		t.Errorf("Build for 386: %v, want it refused", err)
	}
	var se *idemqcdk.SettingError
	if errors.As(err, &se) {
		t.Errorf("a build error is not a setting of WorkerProps: %v", fmt.Sprint(se))
	}
}
