package release

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// CheckVersion reports whether version may name a release: a canonical
// vMAJOR.MINOR.PATCH of major 0 or 1 (a v2 would need the /v2 suffix on
// every module path), with no pre-release or build suffix.
func CheckVersion(version string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version || semver.Prerelease(version) != "" {
		return fmt.Errorf("%q is not a release version vMAJOR.MINOR.PATCH", version)
	}
	if m := semver.Major(version); m != "v0" && m != "v1" {
		return fmt.Errorf("%s: a major version past v1 needs /%s at the end of every module path", version, m)
	}
	return nil
}

// Bump returns the go.mod data (named name, for errors) with every
// requirement of a module in siblings set to version, and whether that
// changed it; comments, "// indirect" marks and the other requirements
// stay as they are. It refuses a go.mod with a replace or exclude
// directive: a released module must mean as a dependency what it means
// here, and go install pkg@version refuses one that has either.
func Bump(name string, data []byte, siblings map[string]bool, version string) ([]byte, bool, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, false, err
	}
	if err := noDirectives(name, f); err != nil {
		return nil, false, err
	}
	var stale []string
	for _, r := range f.Require {
		if siblings[r.Mod.Path] && r.Mod.Version != version {
			if err := module.Check(r.Mod.Path, version); err != nil {
				return nil, false, fmt.Errorf("%s: %w", name, err)
			}
			stale = append(stale, r.Mod.Path)
		}
	}
	if len(stale) == 0 {
		return data, false, nil
	}
	for _, p := range stale {
		// AddRequire sets the version on the line already there.
		if err := f.AddRequire(p, version); err != nil {
			return nil, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	return out, true, nil
}

// noDirectives refuses replace and exclude directives.
func noDirectives(name string, f *modfile.File) error {
	var found []string
	for _, r := range f.Replace {
		found = append(found, "replace "+r.Old.Path)
	}
	for _, e := range f.Exclude {
		found = append(found, "exclude "+e.Mod.Path)
	}
	if len(found) > 0 {
		return fmt.Errorf("%s has %s: a released module must have no replace or exclude directive (go.work serves development)", name, strings.Join(found, ", "))
	}
	return nil
}

// Requirements returns the versions at which the go.mod data requires the
// modules in siblings.
func Requirements(name string, data []byte, siblings map[string]bool) (map[string]string, error) {
	f, err := modfile.ParseLax(name, data, nil)
	if err != nil {
		return nil, err
	}
	reqs := map[string]string{}
	for _, r := range f.Require {
		if siblings[r.Mod.Path] {
			reqs[r.Mod.Path] = r.Mod.Version
		}
	}
	return reqs, nil
}

// Bumped reports whether every module of ws requires its siblings at
// version, reading each go.mod with read; when not, it says which
// requirement is not.
func Bumped(ws Workspace, read func(string) ([]byte, error), version string) (bool, string, error) {
	var off []string
	for _, m := range ws {
		data, err := read(m.File("go.mod"))
		if err != nil {
			return false, "", err
		}
		reqs, err := Requirements(m.File("go.mod"), data, ws.Paths())
		if err != nil {
			return false, "", err
		}
		for p, v := range reqs {
			if v != version {
				off = append(off, fmt.Sprintf("%s requires %s@%s", m.File("go.mod"), p, v))
			}
		}
	}
	sort.Strings(off)
	if len(off) > 0 {
		return false, strings.Join(off, "; "), nil
	}
	return true, "", nil
}
