package release

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const zeroVersion = "v0.0.0-00010101000000-000000000000"

// flowRepo is a throwaway repository laid out as the real one is: the
// root module example.com/m; example.com/m/store, which requires it; and
// an unreleased harness requiring both; every requirement at the zero
// pseudo-version, go.work sending them to the working tree.
type flowRepo struct {
	t    *testing.T
	dir  string
	real string // the real repository's root
}

func newFlowRepo(t *testing.T) *flowRepo {
	t.Helper()
	real, err := FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	r := &flowRepo{t: t, dir: t.TempDir(), real: real}
	script, err := os.ReadFile(filepath.Join(real, "scripts", "release-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	r.write("scripts/release-check.sh", string(script))
	r.write("LICENSE", "the licence\n")
	r.write("go.mod", "module example.com/m\n\ngo 1.26.0\n")
	r.write("m.go", "package m\n\n// A is the API.\nfunc A() {}\n")
	r.write("store/LICENSE", "the licence\n")
	r.write("store/go.mod", "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m "+zeroVersion+"\n")
	r.write("store/store.go", "package store\n\nimport \"example.com/m\"\n\n// S is the store.\nfunc S() { m.A() }\n")
	r.write("harness/go.mod", "module example.com/m/harness\n\ngo 1.26.0\n\nrequire (\n\texample.com/m "+zeroVersion+"\n\texample.com/m/store "+zeroVersion+"\n)\n")
	r.write("harness/h.go", "package harness\n\nimport (\n\t\"example.com/m\"\n\t\"example.com/m/store\"\n)\n\n// H uses both.\nfunc H() { m.A(); store.S() }\n")
	r.write("go.work", "go 1.26.0\n\nuse (\n\t.\n\t./harness\n\t./store\n)\n\nreplace (\n\texample.com/m "+zeroVersion+" => .\n\texample.com/m/harness "+zeroVersion+" => ./harness\n\texample.com/m/store "+zeroVersion+" => ./store\n)\n")
	r.write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n### Added\n- A and S.\n")
	r.git("init", "-q")
	r.git("config", "user.name", "t")
	r.git("config", "user.email", "t@example.com")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "start")
	return r
}

func (r *flowRepo) write(name, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *flowRepo) read(name string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(name)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func (r *flowRepo) git(args ...string) string {
	r.t.Helper()
	out, err := git(r.dir, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// release runs Release for version, with apidiff when apidiff is set.
func (r *flowRepo) release(version, apidiff string) (string, error) {
	var out strings.Builder
	err := Release(context.Background(), ReleaseConfig{
		Root: r.dir, Version: version, APIDiff: apidiff,
		Now:    func() time.Time { return time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC) },
		Stdout: &out, Stderr: &out,
	})
	return out.String(), err
}

// TestRelease releases a throwaway repository's modules: the bump commit,
// the tags at it, the commit recording it; again with nothing to do; on a
// clone without the tags; and refuses what it must, leaving the tree as
// it was.
func TestRelease(t *testing.T) {
	t.Parallel()
	r := newFlowRepo(t)

	// Refused: a dirty tree, and a version that is none.
	r.write("stray.txt", "x\n")
	if out, err := r.release("v0.1.0", ""); err == nil || !strings.Contains(err.Error(), "working tree has changes") {
		t.Fatalf("release with a dirty tree = %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(r.dir, "stray.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.release("0.1", ""); err == nil {
		t.Fatal("release of 0.1 did not refuse")
	}

	start := r.git("rev-parse", "HEAD")
	out, err := r.release("v0.1.0", "")
	if err != nil {
		t.Fatalf("release v0.1.0: %v\n%s", err, out)
	}
	bump := r.git("rev-parse", "HEAD~1")
	if parent := r.git("rev-parse", "HEAD~2"); parent != start {
		t.Fatalf("want two commits on the start, the bump and the record:\n%s", r.git("log", "--oneline"))
	}
	for _, tag := range []string{"v0.1.0", "store/v0.1.0"} {
		if at := tagCommit(r.dir, tag); at != bump {
			t.Errorf("tag %s at %q, want the bump commit %s", tag, at, bump)
		}
	}
	if at := tagCommit(r.dir, "harness/v0.1.0"); at != "" {
		t.Errorf("the unreleased harness was tagged, at %s", at)
	}
	if files := r.git("diff", "--name-only", bump, "HEAD"); files != "CHANGELOG.md" {
		t.Errorf("the record commit changed %q, want CHANGELOG.md alone", files)
	}
	bumped := Commit{Root: r.dir, Hash: bump}
	for _, name := range []string{"store/go.mod", "harness/go.mod", "go.work"} {
		data, err := bumped.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), zeroVersion) || !strings.Contains(string(data), "example.com/m v0.1.0") {
			t.Errorf("the bump commit's %s does not require (or replace) example.com/m at v0.1.0:\n%s", name, data)
		}
	}
	log := r.read("CHANGELOG.md")
	if !strings.Contains(log, "## [Unreleased]\n\n## [v0.1.0] - 2026-12-10\n\nCommit `"+bump+"`") || RecordedCommit(log, "v0.1.0") != bump {
		t.Errorf("CHANGELOG.md after the release:\n%s", log)
	}
	// The workspace still builds without fetching anything: go.work's
	// replace directives moved with the requirements.
	build := exec.Command("go", "build", "./...")
	build.Dir = filepath.Join(r.dir, "harness")
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("go build in the workspace after the release: %v\n%s", err, out)
	}

	// Again: nothing to do.
	head := r.git("rev-parse", "HEAD")
	if out, err := r.release("v0.1.0", ""); err != nil {
		t.Fatalf("release v0.1.0 again: %v\n%s", err, out)
	}
	if r.git("rev-parse", "HEAD") != head {
		t.Errorf("a second release made a commit:\n%s", r.git("log", "--oneline", "-3"))
	}

	// A clone without the tags: they are made at the commit the changelog
	// names.
	clone := &flowRepo{t: t, dir: filepath.Join(t.TempDir(), "clone"), real: r.real}
	if _, err := git(r.dir, "clone", "-q", "--no-tags", r.dir, clone.dir); err != nil {
		t.Fatal(err)
	}
	clone.git("config", "user.name", "t")
	clone.git("config", "user.email", "t@example.com")
	if out, err := clone.release("v0.1.0", ""); err != nil {
		t.Fatalf("release v0.1.0 on a clone without tags: %v\n%s", err, out)
	}
	for _, tag := range []string{"v0.1.0", "store/v0.1.0"} {
		if at := tagCommit(clone.dir, tag); at != bump {
			t.Errorf("the clone's tag %s at %q, want %s", tag, at, bump)
		}
	}
	if clone.git("rev-parse", "HEAD") != head {
		t.Errorf("the clone's release made a commit")
	}

	// A tag at another commit is refused.
	clone.git("tag", "-d", "store/v0.1.0")
	clone.git("tag", "store/v0.1.0", "HEAD")
	if out, err := clone.release("v0.1.0", ""); err == nil || !strings.Contains(err.Error(), "tag store/v0.1.0 points at") {
		t.Errorf("release with a tag elsewhere = %v\n%s", err, out)
	}
}

// TestReleaseRefusedByTheAPICheck releases v0.1.0, adds to the API, and
// then refuses v0.1.1 (an addition needs a new minor), leaving the tree,
// HEAD and the tags as they were, before releasing v0.2.0.
func TestReleaseRefusedByTheAPICheck(t *testing.T) {
	t.Parallel()
	r := newFlowRepo(t)
	differ := apidiff(t, r.real)
	if out, err := r.release("v0.1.0", differ); err != nil {
		t.Fatalf("release v0.1.0: %v\n%s", err, out)
	}
	r.write("store/store.go", "package store\n\nimport \"example.com/m\"\n\n// S is the store.\nfunc S() { m.A() }\n\n// T is new.\nfunc T() {}\n")
	r.write("CHANGELOG.md", strings.Replace(r.read("CHANGELOG.md"), "## [Unreleased]\n", "## [Unreleased]\n\n### Added\n- T.\n", 1))
	r.git("commit", "-q", "-am", "T")
	head := r.git("rev-parse", "HEAD")

	out, err := r.release("v0.1.1", differ)
	if err == nil || !strings.Contains(out, "API additions need a new minor version") {
		t.Fatalf("release v0.1.1 with an addition = %v\n%s", err, out)
	}
	if status := r.git("status", "--porcelain"); status != "" {
		t.Errorf("the refused release left changes:\n%s", status)
	}
	if r.git("rev-parse", "HEAD") != head || tagCommit(r.dir, "v0.1.1") != "" {
		t.Errorf("the refused release committed or tagged")
	}

	if out, err := r.release("v0.2.0", differ); err != nil {
		t.Fatalf("release v0.2.0: %v\n%s", err, out)
	}
	if tagCommit(r.dir, "store/v0.2.0") == "" || !strings.Contains(r.read("store/go.mod"), "example.com/m v0.2.0") {
		t.Errorf("v0.2.0 not released:\n%s", out)
	}
}
