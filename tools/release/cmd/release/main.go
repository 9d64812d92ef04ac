// Command release keeps the repository's modules releasable and releases
// them (docs/development.md, "Modules" and "Releases"):
//
//	release check              every go.mod tidy and free of replace directives, no requirement of a sibling only tests use, go.work's replace directives right, each released module's LICENSE the root's (make modules-check)
//	release tidy               go mod tidy in every module against the working tree, go.work's replace directives (make tidy)
//	release release vX.Y.Z     bump, check the API, write the changelog, commit, tag, prove (make release)
//	release proxy -out DIR [-version vX.Y.Z]   write a file-system module proxy of a release or of the working tree
//
// It runs from anywhere in the repository. make builds it into bin/ with
// GOWORK=off (GOWORK=off go -C tools/release build -o bin/release
// ./cmd/release): its module requires golang.org/x/mod alone, so it builds
// even when go.work cannot, and the commands it runs see the workspace.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/idemq/idemq/tools/release"
)

func main() {
	// Built with GOWORK=off (or run by go run with it), the tool itself
	// needs no workspace; the go commands it runs do.
	if os.Getenv("GOWORK") == "off" {
		_ = os.Unsetenv("GOWORK")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		stop()
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

const usage = `usage: release check | tidy | release vX.Y.Z | proxy -out DIR [-version vX.Y.Z]`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	root, err := release.FindRoot()
	if err != nil {
		return err
	}
	ws, err := release.ReadWorkspace(release.ReadDir(root))
	if err != nil {
		return err
	}
	switch args[0] {
	case "check":
		return check(root, ws, stdout)
	case "tidy":
		return tidy(root, ws, stdout)
	case "release":
		fs := flag.NewFlagSet("release", flag.ContinueOnError)
		fs.SetOutput(stderr)
		noProof := fs.Bool("no-proof", false, "skip the module-proxy proof after tagging")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		if fs.NArg() != 1 {
			return usageError{"usage: release release [-no-proof] vX.Y.Z"}
		}
		return release.Release(ctx, release.ReleaseConfig{
			Root: root, Version: fs.Arg(0), APIDiff: os.Getenv("APIDIFF"), Prove: !*noProof,
			Stdout: stdout, Stderr: stderr,
		})
	case "proxy":
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		fs.SetOutput(stderr)
		out := fs.String("out", "", "the directory to write the proxy in (GOPROXY=file://DIR)")
		version := fs.String("version", "", "the release to serve: from its tags, or the commit CHANGELOG.md names; none: the working tree as the next version")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		if *out == "" || fs.NArg() != 0 {
			return usageError{"usage: release proxy -out DIR [-version vX.Y.Z]"}
		}
		src, err := release.Choose(root, *version)
		if err != nil {
			return err
		}
		built, err := release.BuildProxy(root, src, *out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s (%s): %d modules in %s\n", built.Version, src.Describe(), len(built.Modules), *out)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown command %q\n%s", args[0], usage)}
	}
}

// check fails when a go.mod is not tidy or holds a replace directive, or
// a module's licence is not LICENSE.
func check(root string, ws release.Workspace, stdout io.Writer) error {
	var errs []error
	for _, m := range ws {
		differ, err := release.Tidy(root, ws, m, false)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range differ {
			errs = append(errs, fmt.Errorf("%s is not tidy: run make tidy", f))
		}
	}
	if err := release.TestOnly(root, ws); err != nil {
		errs = append(errs, err)
	}
	if err := release.Licences(root, ws); err != nil {
		errs = append(errs, err)
	}
	if _, changed, err := work(root, ws); err != nil {
		errs = append(errs, err)
	} else if changed {
		errs = append(errs, errors.New("go.work's replace directives do not replace every module at the version its siblings require: run make tidy"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "release check: %d modules tidy, no replace directive in a go.mod, no requirement only tests use, go.work's replace directives right, %d copies of LICENSE\n", len(ws), len(ws.Released())-1)
	return nil
}

// work returns go.work with its replace directives as release.Work makes
// them, and whether that changes it.
func work(root string, ws release.Workspace) ([]byte, bool, error) {
	version, err := release.Required(ws, release.ReadDir(root))
	if err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, false, err
	}
	return release.Work(data, ws, version)
}

// tidy tidies every module, and go.work's replace directives.
func tidy(root string, ws release.Workspace, stdout io.Writer) error {
	data, changed, err := work(root, ws)
	if err != nil {
		return err
	}
	if changed {
		if err := os.WriteFile(filepath.Join(root, "go.work"), data, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "tidied go.work")
	}
	for _, m := range ws {
		differ, err := release.Tidy(root, ws, m, true)
		if err != nil {
			return err
		}
		for _, f := range differ {
			fmt.Fprintln(stdout, "tidied", f)
		}
	}
	return nil
}
