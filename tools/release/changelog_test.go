package release

import (
	"strings"
	"testing"
)

const changelog = `# Changelog

Notes.

## [Unreleased]

### Added
- A thing.

## [v0.1.0] - 2026-11-01

### Added
- The first thing.
`

func TestReleaseSection(t *testing.T) {
	t.Parallel()
	got, err := ReleaseSection(changelog, "v0.2.0", "2026-12-10")
	if err != nil {
		t.Fatal(err)
	}
	want := `# Changelog

Notes.

## [Unreleased]

## [v0.2.0] - 2026-12-10

### Added
- A thing.

## [v0.1.0] - 2026-11-01

### Added
- The first thing.
`
	if got != want {
		t.Errorf("ReleaseSection =\n%s\nwant\n%s", got, want)
	}
	if !HasSection(got, "v0.2.0") || HasSection(got, "v0.3.0") {
		t.Error("HasSection does not see the new section, or sees one not there")
	}
	if vs := Versions(got); strings.Join(vs, " ") != "v0.2.0 v0.1.0" {
		t.Errorf("Versions = %v", vs)
	}

	for name, text := range map[string]string{
		"empty Unreleased": strings.Replace(changelog, "### Added\n- A thing.\n\n", "", 1),
		"no Unreleased":    strings.Replace(changelog, "## [Unreleased]", "## Unreleased", 1),
		"version is there": want,
	} {
		if _, err := ReleaseSection(text, "v0.2.0", "2026-12-10"); err == nil {
			t.Errorf("%s: ReleaseSection did not refuse", name)
		}
	}
}

func TestRecordCommit(t *testing.T) {
	t.Parallel()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	if got := RecordedCommit(changelog, "v0.1.0"); got != "" {
		t.Errorf("RecordedCommit before = %q", got)
	}
	got, err := RecordCommit(changelog, "v0.1.0", commit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "## [v0.1.0] - 2026-11-01\n\nCommit `"+commit+"`: every module's tag for v0.1.0 points at it (tags do not travel with every clone).\n\n### Added\n- The first thing.\n") {
		t.Errorf("RecordCommit =\n%s", got)
	}
	if c := RecordedCommit(got, "v0.1.0"); c != commit {
		t.Errorf("RecordedCommit = %q, want %s", c, commit)
	}
	if again, err := RecordCommit(got, "v0.1.0", commit); err != nil || again != got {
		t.Errorf("a second RecordCommit changed it (err %v)", err)
	}
	if _, err := RecordCommit(got, "v0.1.0", strings.Repeat("f", 40)); err == nil {
		t.Error("RecordCommit of another commit did not refuse")
	}
	if _, err := RecordCommit(changelog, "v0.3.0", commit); err == nil {
		t.Error("RecordCommit of a version with no section did not refuse")
	}
}

func TestReadme(t *testing.T) {
	t.Parallel()
	in := "The current version is **v0.2.0**.\n\n| DynamoDB | `github.com/idemq/idemq/idem/dynamostore@v0.2.0` |\n`go install github.com/idemq/idemq/cmd/idemq@v0.2.0`, `github.com/idemq/idemq@v0.2.0`, `github.com/other/x@v0.2.0`, `github.com/idemq/idemq/cmd/idemq@latest`\n"
	want := "The current version is **v0.3.0**.\n\n| DynamoDB | `github.com/idemq/idemq/idem/dynamostore@v0.3.0` |\n`go install github.com/idemq/idemq/cmd/idemq@v0.3.0`, `github.com/idemq/idemq@v0.3.0`, `github.com/other/x@v0.2.0`, `github.com/idemq/idemq/cmd/idemq@latest`\n"
	if got := Readme(in, "v0.3.0"); got != want {
		t.Errorf("Readme =\n%s\nwant\n%s", got, want)
	}
}
