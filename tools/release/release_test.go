package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// apidiff finds the pinned apidiff that make installs into bin/, or
// $APIDIFF.
func apidiff(t *testing.T, root string) string {
	t.Helper()
	if p := os.Getenv("APIDIFF"); p != "" {
		return p
	}
	p := filepath.Join(root, "bin", "apidiff")
	if _, err := os.Stat(p); err != nil {
		if testing.Short() {
			t.Skip("no apidiff; -short skips this test")
		}
		t.Fatalf("no apidiff at %s: run `make apidiff` (it installs the pinned golang.org/x/exp/cmd/apidiff into bin/), or set APIDIFF", p)
	}
	return p
}

// scriptRepo is a throwaway repository holding a one-package module, released
// as v0.1.0.
type scriptRepo struct {
	t              *testing.T
	dir            string
	script, differ string
}

func newModule(t *testing.T) *scriptRepo {
	root, err := FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	m := &scriptRepo{t: t, dir: t.TempDir(), script: filepath.Join(root, "scripts", "release-check.sh"), differ: apidiff(t, root)}
	m.write("go.mod", "module example.com/m\n\ngo 1.26\n")
	m.write("m.go", "package m\n\n// A is the API.\nfunc A() {}\n")
	m.write("CHANGELOG.md", "# Changelog\n\n## [v0.1.0]\n")
	m.git("init", "-q")
	m.git("add", "-A")
	m.git("commit", "-q", "-m", "v0.1.0")
	m.git("tag", "v0.1.0")
	return m
}

func (m *scriptRepo) write(name, text string) {
	if err := os.WriteFile(filepath.Join(m.dir, name), []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

func (m *scriptRepo) git(args ...string) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = m.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		m.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// change commits a new m.go and a changelog with sections for versions.
func (m *scriptRepo) change(code string, versions ...string) {
	m.write("m.go", "package m\n\n"+code)
	log := "# Changelog\n\n"
	for _, v := range versions {
		log += "## [" + v + "]\n\n"
	}
	m.write("CHANGELOG.md", log+"## [v0.1.0]\n")
	m.git("add", "-A")
	m.git("commit", "-q", "--allow-empty", "-m", "change")
}

// check runs the script for version and reports whether it allowed it.
func (m *scriptRepo) check(version string) (bool, string) {
	cmd := exec.Command("bash", m.script, version)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "APIDIFF="+m.differ, "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		m.t.Fatal(err)
	}
	return err == nil, string(out)
}

func TestReleaseCheck(t *testing.T) {
	t.Parallel()
	// From v1.0.0 (since), a break needs a new major version and an
	// addition a new minor: a v1 module's users are promised what v0's
	// were not.
	for _, tc := range []struct {
		name, code string
		since      string          // the last release, tagged on a commit of its own after v0.1.0; "": v0.1.0
		allowed    map[string]bool // version → may it be released
	}{
		{"no change", "// A is the API.\nfunc A() {}\n", "",
			map[string]bool{"v0.1.1": true, "v0.1.0": false}},
		{"an addition", "// A is the API.\nfunc A() {}\n\n// B is new.\nfunc B() {}\n", "",
			map[string]bool{"v0.1.1": false, "v0.2.0": true}},
		{"a break", "// A is the API.\nfunc A(int) {}\n", "",
			map[string]bool{"v0.1.1": false, "v0.2.0": true, "v1.0.0": true}},
		{"a break after v1.0.0", "// A is the API.\nfunc A(int) {}\n", "v1.0.0",
			map[string]bool{"v1.0.1": false, "v1.1.0": false, "v2.0.0": true}},
		{"an addition after v1.0.0", "// A is the API.\nfunc A() {}\n\n// B is new.\nfunc B() {}\n", "v1.0.0",
			map[string]bool{"v1.0.1": false, "v1.1.0": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newModule(t)
			if tc.since != "" {
				m.git("commit", "-q", "--allow-empty", "-m", tc.since)
				m.git("tag", tc.since)
			}
			var versions []string
			for v := range tc.allowed {
				versions = append(versions, v)
			}
			m.change(tc.code, versions...)
			for v, want := range tc.allowed {
				if got, out := m.check(v); got != want {
					t.Errorf("%s: allowed %v, want %v\n%s", v, got, want, out)
				}
			}
		})
	}
	t.Run("no changelog section", func(t *testing.T) {
		t.Parallel()
		m := newModule(t)
		m.change("// A is the API.\nfunc A() {}\n")
		if ok, out := m.check("v0.1.1"); ok || !strings.Contains(out, "CHANGELOG.md has no section") {
			t.Errorf("allowed %v without a changelog section:\n%s", ok, out)
		}
	})
}

// newModules is a throwaway repository holding two modules released
// together as v0.1.0: the root example.com/m and the nested example.com/m/sub,
// which requires the root.
func newModules(t *testing.T) *scriptRepo {
	m := newModule(t)
	if err := os.Mkdir(filepath.Join(m.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.write("sub/go.mod", "module example.com/m/sub\n\ngo 1.26\n\nrequire example.com/m v0.1.0\n")
	m.write("sub/sub.go", "package sub\n\nimport \"example.com/m\"\n\n// S is the API.\nfunc S() { m.A() }\n")
	m.write("go.work", "go 1.26\n\nuse (\n\t.\n\t./sub\n)\n")
	m.git("add", "-A")
	m.git("commit", "-q", "-m", "sub")
	m.git("tag", "-f", "v0.1.0")
	m.git("tag", "sub/v0.1.0")
	return m
}

// changeSub commits a new sub/sub.go, sub/go.mod requiring the root at
// requires, and a changelog with a section for version.
func (m *scriptRepo) changeSub(code, requires, version string) {
	m.write("sub/sub.go", "package sub\n\nimport \"example.com/m\"\n\n"+code)
	m.write("sub/go.mod", "module example.com/m/sub\n\ngo 1.26\n\nrequire example.com/m "+requires+"\n")
	m.write("CHANGELOG.md", "# Changelog\n\n## ["+version+"]\n\n## [v0.1.0]\n")
	m.git("add", "-A")
	m.git("commit", "-q", "--allow-empty", "-m", "change sub")
}

// The CDK constructs' module (infra) is in the promise as the library is;
// the reference worker's (lambda) API changes are shown, not ruled on, as
// are those of the handler's test setup (handler/handlertest/handlerbundle,
// public only because two modules' tests share it), while a break in a
// package beside it still needs its version.
func TestReleaseCheckCovered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir     string
		module  bool // dir is a module of its own, tagged dir/v0.1.0
		covered bool
	}{
		{"infra", true, true},
		{"lambda", true, false},
		{"handler/handlertest/handlerbundle", false, false},
		{"handler/handlertest", false, true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			m := newModule(t)
			if err := os.MkdirAll(filepath.Join(m.dir, tc.dir), 0o755); err != nil {
				t.Fatal(err)
			}
			mod := "example.com/m/" + tc.dir
			if tc.module {
				m.write(tc.dir+"/go.mod", "module "+mod+"\n\ngo 1.26\n")
			}
			m.write(tc.dir+"/c.go", "package c\n\n// C is the API.\nfunc C() {}\n")
			m.git("add", "-A")
			m.git("commit", "-q", "-m", tc.dir)
			m.git("tag", "-f", "v0.1.0")
			if tc.module {
				m.git("tag", tc.dir+"/v0.1.0")
			}
			m.write(tc.dir+"/c.go", "package c\n\n// C is the API.\nfunc C(int) {}\n")
			m.write("CHANGELOG.md", "# Changelog\n\n## [v0.1.1]\n\n## [v0.1.0]\n")
			m.git("add", "-A")
			m.git("commit", "-q", "-m", "break "+tc.dir)
			ok, out := m.check("v0.1.1")
			if ok == tc.covered {
				t.Errorf("a break in %s at a patch release: allowed %v, want %v\n%s", tc.dir, ok, !tc.covered, out)
			}
			want := mod + ": incompatible changes"
			if !tc.module {
				want = "(not covered by the stability promise) - ./" + tc.dir + ".C"
			}
			if tc.covered == tc.module && !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}

// The nested module's API is checked against its own tag, its go.mod must
// require the root at the version released, and every module's tag is
// printed.
func TestReleaseCheckModules(t *testing.T) {
	t.Parallel()
	t.Run("a break in the nested module", func(t *testing.T) {
		t.Parallel()
		m := newModules(t)
		m.changeSub("// S is the API.\nfunc S(int) { m.A() }\n", "v0.1.1", "v0.1.1")
		if ok, out := m.check("v0.1.1"); ok || !strings.Contains(out, "example.com/m/sub: incompatible changes") {
			t.Errorf("allowed %v for a break in sub at a patch release:\n%s", ok, out)
		}
	})
	t.Run("a requirement of another version", func(t *testing.T) {
		t.Parallel()
		m := newModules(t)
		m.changeSub("// S is the API.\nfunc S() { m.A() }\n", "v0.1.0", "v0.1.1")
		if ok, out := m.check("v0.1.1"); ok || !strings.Contains(out, "go mod edit -require=example.com/m@v0.1.1 sub/go.mod") {
			t.Errorf("allowed %v with sub requiring the root at v0.1.0:\n%s", ok, out)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		m := newModules(t)
		m.changeSub("// S is the API.\nfunc S() { m.A() }\n\n// T is new.\nfunc T() {}\n", "v0.2.0", "v0.2.0")
		ok, out := m.check("v0.2.0")
		if !ok {
			t.Fatalf("refused:\n%s", out)
		}
		for _, tag := range []string{"git tag v0.2.0\n", "git tag sub/v0.2.0\n"} {
			if !strings.Contains(out, tag) {
				t.Errorf("output lacks %q:\n%s", tag, out)
			}
		}
	})
}
