package idemqcdk_test

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
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

// TestGoBuildFailureFailsSynth checks that a package that does not build
// fails the synth with go build's message, rather than falling back to
// Docker.
func TestGoBuildFailureFailsSynth(t *testing.T) {
	b := &idemqcdk.GoBuild{ModuleDir: tinyModule(t, "package main\n\nfunc main() { undefined() }\n"), Package: "."}
	err := b.Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("Build: got %v, want go build's error", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("TryBundle did not panic on a failed build")
		}
	}()
	b.TryBundle(jsii.String(t.TempDir()), nil)
}

// TestGoCodeBundlesAtSynth checks GoCode through the CDK: at synth, the CDK
// calls GoBuild (from node, through jsii), and stages the bootstrap it
// built as the function's asset.
func TestGoCodeBundlesAtSynth(t *testing.T) {
	outdir := t.TempDir()
	ctx := appContext(t, nil)
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(outdir)})
	stack := awscdk.NewStack(app, jsii.String("S"), nil)
	idemqcdk.NewWorker(stack, "Worker", &idemqcdk.WorkerProps{Code: idemqcdk.GoCode(tinyModule(t, tinyMain), ".")})
	tpl := assertions.Template_FromStack(stack, nil)

	fns := tpl.FindResources(jsii.String("AWS::Lambda::Function"), nil)
	for _, fn := range *fns {
		meta, _ := (*fn)["Metadata"].(map[string]any)
		asset, _ := meta["aws:asset:path"].(string)
		if asset == "" {
			t.Fatalf("the function has no asset: %v", *fn)
		}
		wantBootstrap(t, filepath.Join(outdir, asset))
	}
	if len(*fns) != 1 {
		t.Errorf("%d functions, want 1", len(*fns))
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
