package release

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/mod/semver"
)

// The changelog is CHANGELOG.md in Keep a Changelog's shape: a section
// "## [Unreleased]" gathers the changes since the last release, and each
// release has a section "## [vX.Y.Z] - YYYY-MM-DD" whose first line names
// the commit its tags point at, since tags do not travel with every clone.

const unreleasedHeading = "## [Unreleased]"

// heading is the start of version's section.
func heading(version string) string { return "## [" + version + "]" }

// sections splits a changelog into its "## " sections: the text before the
// first, then each section from its heading line to the next.
func sections(text string) (head string, secs []string) {
	lines := strings.SplitAfter(text, "\n")
	var cur strings.Builder
	first := true
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			if first {
				head = cur.String()
				first = false
			} else {
				secs = append(secs, cur.String())
			}
			cur.Reset()
		}
		cur.WriteString(l)
	}
	if first {
		return cur.String(), nil
	}
	return head, append(secs, cur.String())
}

// HasSection reports whether the changelog has a section for version.
func HasSection(text, version string) bool {
	_, secs := sections(text)
	for _, s := range secs {
		if strings.HasPrefix(s, heading(version)) {
			return true
		}
	}
	return false
}

// ReleaseSection moves what the Unreleased section holds into a new
// section for version dated date (YYYY-MM-DD), below an emptied
// Unreleased section. It refuses a changelog with no Unreleased section,
// an empty one (a release says what it changes) or one that has a
// section for version already.
func ReleaseSection(text, version, date string) (string, error) {
	if HasSection(text, version) {
		return "", fmt.Errorf("CHANGELOG.md has a section for %s already", version)
	}
	head, secs := sections(text)
	for i, s := range secs {
		if !strings.HasPrefix(s, unreleasedHeading) {
			continue
		}
		body := strings.TrimPrefix(s, unreleasedHeading)
		body = strings.TrimPrefix(strings.TrimLeft(body, " \t"), "\n")
		if strings.TrimSpace(body) == "" {
			return "", fmt.Errorf("CHANGELOG.md's %s section is empty: say what %s changes", unreleasedHeading, version)
		}
		secs[i] = unreleasedHeading + "\n\n" + heading(version) + " - " + date + "\n\n" + strings.TrimLeft(body, "\n")
		return head + strings.Join(secs, ""), nil
	}
	return "", fmt.Errorf("CHANGELOG.md has no %s section", unreleasedHeading)
}

var commitLine = regexp.MustCompile("^Commit `([0-9a-f]{40})`")

// RecordedCommit returns the commit version's section names, or "" when
// it names none (or there is no such section).
func RecordedCommit(text, version string) string {
	_, secs := sections(text)
	for _, s := range secs {
		if !strings.HasPrefix(s, heading(version)) {
			continue
		}
		for _, l := range strings.Split(s, "\n")[1:] {
			if m := commitLine.FindStringSubmatch(l); m != nil {
				return m[1]
			}
			if strings.TrimSpace(l) != "" {
				return "" // the line must come first
			}
		}
	}
	return ""
}

// RecordCommit names commit as version's in its section, as the section's
// first line, and returns the changelog; when the section names it
// already it returns the text unchanged.
func RecordCommit(text, version, commit string) (string, error) {
	if got := RecordedCommit(text, version); got != "" {
		if got != commit {
			return "", fmt.Errorf("CHANGELOG.md names commit %s for %s, not %s", got, version, commit)
		}
		return text, nil
	}
	head, secs := sections(text)
	for i, s := range secs {
		if !strings.HasPrefix(s, heading(version)) {
			continue
		}
		title, rest, _ := strings.Cut(s, "\n")
		line := fmt.Sprintf("Commit `%s`: every module's tag for %s points at it (tags do not travel with every clone).", commit, version)
		secs[i] = title + "\n\n" + line + "\n\n" + strings.TrimLeft(rest, "\n")
		return head + strings.Join(secs, ""), nil
	}
	return "", fmt.Errorf("CHANGELOG.md has no section for %s", version)
}

var releaseHeading = regexp.MustCompile(`(?m)^## \[(v[0-9]+\.[0-9]+\.[0-9]+)\]`)

// Versions returns the versions the changelog has sections for.
func Versions(text string) []string {
	var vs []string
	for _, m := range releaseHeading.FindAllStringSubmatch(text, -1) {
		if semver.IsValid(m[1]) {
			vs = append(vs, m[1])
		}
	}
	return vs
}
