package release

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"
)

// Source is what a module proxy serves as Version.
type Source struct {
	// Version is the version every module is served as.
	Version string
	// Commit is the commit whose tree is served. "" serves the working
	// tree (the files git would commit: tracked and untracked, not
	// ignored), each go.mod stamped so that it requires its siblings at
	// Version, as the release's bump commit will.
	Commit string
	// From says how Commit was found: "tags", "CHANGELOG.md", or
	// "working tree".
	From string
}

// Describe says what the source is, for a log.
func (s Source) Describe() string {
	if s.Commit == "" {
		return "the working tree stamped as " + s.Version
	}
	return fmt.Sprintf("commit %.12s, from its %s", s.Commit, s.From)
}

// Choose picks what a proxy serves for version: its tags, when every
// released module has one (they must all point at one commit); else the
// commit CHANGELOG.md names for it; else the working tree stamped as
// version, a candidate. With version "", the working tree stamped as the
// next minor version after the newest release (NextVersion).
func Choose(root, version string) (Source, error) {
	if version == "" {
		v, err := NextVersion(root)
		if err != nil {
			return Source{}, err
		}
		return Source{Version: v, From: "working tree"}, nil
	}
	if err := CheckVersion(version); err != nil {
		return Source{}, err
	}
	ws, err := ReadWorkspace(ReadDir(root))
	if err != nil {
		return Source{}, err
	}
	commit, err := taggedCommit(root, ws, version)
	if err != nil {
		return Source{}, err
	}
	if commit != "" {
		return Source{Version: version, Commit: commit, From: "tags"}, nil
	}
	log, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return Source{}, err
	}
	if c := RecordedCommit(string(log), version); c != "" {
		if resolve(root, c) == "" {
			return Source{}, fmt.Errorf("CHANGELOG.md names commit %s for %s, which this clone lacks", c, version)
		}
		return Source{Version: version, Commit: c, From: "CHANGELOG.md"}, nil
	}
	return Source{Version: version, From: "working tree"}, nil
}

// taggedCommit returns the commit every released module's tag for version
// points at, "" when none has one, and an error when only some have one
// or they point at different commits.
func taggedCommit(root string, ws Workspace, version string) (string, error) {
	var commit string
	var missing, tagged []string
	for _, m := range ws.Released() {
		c := tagCommit(root, m.Tag(version))
		if c == "" {
			missing = append(missing, m.Tag(version))
			continue
		}
		tagged = append(tagged, m.Tag(version))
		if commit != "" && c != commit {
			return "", fmt.Errorf("the tags of %s point at different commits: %s at %.12s, %s at %.12s", version, tagged[0], commit, m.Tag(version), c)
		}
		commit = c
	}
	if commit != "" && len(missing) > 0 {
		return "", fmt.Errorf("%s is tagged for some modules but not %s: make release VERSION=%s creates the missing tags", version, strings.Join(missing, ", "), version)
	}
	return commit, nil
}

// NextVersion is the minor version after the newest release, found in the
// root module's tags and CHANGELOG.md's sections; v0.1.0 when there is
// none.
func NextVersion(root string) (string, error) {
	newest := ""
	tags, err := git(root, "tag", "--list", "v*")
	if err != nil {
		return "", err
	}
	log, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return "", err
	}
	for _, v := range append(strings.Fields(tags), Versions(string(log))...) {
		if CheckVersion(v) == nil && (newest == "" || semver.Compare(v, newest) > 0) {
			newest = v
		}
	}
	if newest == "" {
		return "v0.1.0", nil
	}
	var major, minor int
	if _, err := fmt.Sscanf(semver.MajorMinor(newest), "v%d.%d", &major, &minor); err != nil {
		return "", fmt.Errorf("version %s: %w", newest, err)
	}
	return fmt.Sprintf("v%d.%d.0", major, minor+1), nil
}
