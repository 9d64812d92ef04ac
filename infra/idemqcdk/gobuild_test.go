package idemqcdk_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// tinyModule is a module with a main package that prints its GOARCH.
func tinyModule(tb testing.TB, mainGo string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/tiny\n\ngo 1.26\n",
		"main.go": mainGo,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

const tinyMain = "package main\n\nimport \"runtime\"\n\nfunc main() { println(runtime.GOARCH) }\n"

// wantBootstrap checks that dir/bootstrap is a static linux/arm64 executable.
func wantBootstrap(tb testing.TB, dir string) []byte {
	tb.Helper()
	path := filepath.Join(dir, "bootstrap")
	f, err := elf.Open(path)
	if err != nil {
		tb.Fatalf("bootstrap: %v", err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 || f.Type != elf.ET_EXEC {
		tb.Errorf("bootstrap is %v %v, want an EM_AARCH64 ET_EXEC", f.Machine, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			tb.Errorf("bootstrap is dynamically linked (CGO_ENABLED=0 expected)")
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode()&0o111 == 0 {
		tb.Errorf("bootstrap is not executable: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	return b
}

// TestGoBuild checks the build the function's code comes from: a static
// linux/arm64 executable named bootstrap, the same bytes from the same
// sources wherever the module sits (so the asset hash, and the deployed
// function, change only when the code does).
func TestGoBuild(t *testing.T) {
	var builds [][]byte
	for range 2 {
		out := t.TempDir()
		b := &idemqcdk.GoBuild{ModuleDir: tinyModule(t, tinyMain), Package: "."}
		if err := b.Build(out); err != nil {
			t.Fatal(err)
		}
		builds = append(builds, wantBootstrap(t, out))
	}
	if !bytes.Equal(builds[0], builds[1]) {
		t.Errorf("two builds of the same sources in two directories differ")
	}
}

// TestGoCodeFailsOnBuildError checks that a package that does not build
// fails at GoCode with go build's message.
func TestGoCodeFailsOnBuildError(t *testing.T) {
	b := &idemqcdk.GoBuild{ModuleDir: tinyModule(t, "package main\n\nfunc main() { undefined() }\n"), Package: "."}
	err := b.Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("Build: got %v, want go build's error", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "undefined") {
			t.Errorf("GoCode: recovered %v, want a panic with go build's error", r)
		}
	}()
	idemqcdk.GoCode(b.ModuleDir, ".")
}

// bundlingSkipped is the context the CLI gives the app for commands that
// deploy nothing (cdk bootstrap, cdk destroy, cdk ls): bundle no stack.
var bundlingSkipped = map[string]any{"aws:cdk:bundling-stacks": arr{}}

// stagedAsset synthesizes a Worker whose code is code, with the context
// overrides, and returns the function's asset hash and the folder CDK
// staged (and would zip and upload) for it.
func stagedAsset(t *testing.T, code func() awslambda.Code, overrides map[string]any) (hash, dir string) {
	t.Helper()
	outdir := t.TempDir()
	ctx := appContext(t, overrides)
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(outdir)})
	stack := awscdk.NewStack(app, jsii.String("S"), nil)
	idemqcdk.NewWorker(stack, jsii.String("Worker"), &idemqcdk.WorkerProps{Code: code(), Request: request.Identity{Namespace: "jobs"}})
	fns := *assertions.Template_FromStack(stack, nil).FindResources(jsii.String("AWS::Lambda::Function"), nil)
	if len(fns) != 1 {
		t.Fatalf("%d functions, want 1", len(fns))
	}
	for _, fn := range fns {
		meta, _ := (*fn)["Metadata"].(map[string]any)
		path, _ := meta["aws:asset:path"].(string)
		if path == "" {
			t.Fatalf("the function has no asset: %v", *fn)
		}
		return strings.TrimPrefix(path, "asset."), filepath.Join(outdir, path)
	}
	return "", ""
}

// wantOnlyBootstrap checks that the asset folder holds an arm64 bootstrap
// and nothing else.
func wantOnlyBootstrap(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "bootstrap" {
		t.Errorf("the asset holds %v, want [bootstrap] alone", names)
	}
	wantBootstrap(t, dir)
}

// TestGoCodeAssetIsTheBinary checks that the asset is a folder holding the
// built bootstrap alone, whether the CLI asks for bundling or not (cdk
// bootstrap and cdk destroy don't), and that its hash follows what goes
// into the binary: the same for a copy of the module with a README, a .git
// folder and node_modules added, another for a change to the code.
func TestGoCodeAssetIsTheBinary(t *testing.T) {
	module := tinyModule(t, tinyMain)
	code := func(dir string) func() awslambda.Code {
		return func() awslambda.Code { return idemqcdk.GoCode(dir, ".") }
	}
	hash, dir := stagedAsset(t, code(module), nil)
	wantOnlyBootstrap(t, dir)

	skipped, dir := stagedAsset(t, code(module), bundlingSkipped)
	wantOnlyBootstrap(t, dir)
	if skipped != hash {
		t.Errorf("asset hash %s without bundling, %s with it: want the same", skipped, hash)
	}

	cluttered := tinyModule(t, tinyMain)
	for _, f := range []string{"README.md", ".git/HEAD", "node_modules/x/index.js"} {
		path := filepath.Join(cluttered, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("not code\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := stagedAsset(t, code(cluttered), nil); got != hash {
		t.Errorf("asset hash %s for the module with files outside the binary added, want %s", got, hash)
	}

	changed := tinyModule(t, strings.Replace(tinyMain, "println(runtime.GOARCH)", "println(runtime.GOOS)", 1))
	if got, _ := stagedAsset(t, code(changed), nil); got == hash {
		t.Errorf("asset hash %s unchanged after a change to the code", got)
	}
}

// TestStackNeverPackagesTheRepository synthesizes the stack cdk.json
// deploys, building lambda/ from this repository, as cdk deploy (bundling)
// and cdk bootstrap or destroy (no bundling) run it: the function's asset
// is bootstrap alone either time, never the repository's folder.
func TestStackNeverPackagesTheRepository(t *testing.T) {
	for name, overrides := range map[string]map[string]any{"deploy": nil, "bootstrap or destroy": bundlingSkipped} {
		t.Run(name, func(t *testing.T) {
			overrides := maps.Clone(overrides)
			if overrides == nil {
				overrides = map[string]any{}
			}
			overrides["idemq:bootstrapDir"] = "" // build lambda/
			app := newApp(t, overrides)
			stack, err := idemqcdk.NewStack(app, jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."})
			if err != nil {
				t.Fatal(err)
			}
			asm := app.Synth(nil)
			fns := *assertions.Template_FromStack(stack, nil).FindResources(jsii.String("AWS::Lambda::Function"), nil)
			for _, fn := range fns {
				meta, _ := (*fn)["Metadata"].(map[string]any)
				wantOnlyBootstrap(t, filepath.Join(*asm.Directory(), meta["aws:asset:path"].(string)))
			}
		})
	}
}

// TestLambdaBuilds builds the repository's worker, lambda/, as `make synth`
// does. It is skipped until lambda/ exists.
func TestLambdaBuilds(t *testing.T) {
	if _, err := os.Stat("../../lambda"); os.IsNotExist(err) {
		t.Skip("lambda/ does not exist yet")
	}
	out := t.TempDir()
	b := &idemqcdk.GoBuild{ModuleDir: "../..", Package: idemqcdk.WorkerPackage}
	if err := b.Build(out); err != nil {
		t.Fatal(err)
	}
	wantBootstrap(t, out)
}
