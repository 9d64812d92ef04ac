package release

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Required returns the one version at which the workspace's go.mod files
// require their siblings (the last release's, or the zero pseudo-version
// v0.0.0-00010101000000-000000000000 before the first), reading them with
// read. It is an error for two requirements to differ: the modules are
// released together.
func Required(ws Workspace, read func(string) ([]byte, error)) (string, error) {
	seen := map[string][]string{} // version → who requires a sibling at it
	for _, m := range ws {
		data, err := read(m.File("go.mod"))
		if err != nil {
			return "", err
		}
		reqs, err := Requirements(m.File("go.mod"), data, ws.Paths())
		if err != nil {
			return "", err
		}
		for p, v := range reqs {
			seen[v] = append(seen[v], m.Dir+" → "+p)
		}
	}
	switch len(seen) {
	case 0:
		return "", fmt.Errorf("no module of go.work requires another")
	case 1:
		for v := range seen {
			return v, nil
		}
	}
	var lines []string
	for v, who := range seen {
		sort.Strings(who)
		lines = append(lines, fmt.Sprintf("%s: %s", v, strings.Join(who, ", ")))
	}
	sort.Strings(lines)
	return "", fmt.Errorf("the go.mod files require their siblings at different versions (make release sets them all):\n  %s", strings.Join(lines, "\n  "))
}

// Work returns go.work's data with its replace directives for the
// workspace's modules set to exactly one per module: the module at
// version (the one its siblings require it at) replaced by its directory.
// The go command, even in a workspace, reads the go.mod of every module
// version a go.mod requires; before the version is published (and
// before the first release, whose zero pseudo-version names nothing) only
// these directives stop it fetching one. A replace directive of a module
// under the root's path that go.work no longer uses is dropped; those of
// other modules stay. It reports whether the data changed.
func Work(data []byte, ws Workspace, version string) ([]byte, bool, error) {
	wf, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return nil, false, err
	}
	want := map[string]string{} // path → directory
	for _, m := range ws {
		dir := "./" + m.Dir
		if m.Dir == "." {
			dir = "."
		}
		want[m.Path] = dir
	}
	root := ws.Root().Path
	ours := func(p string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	changed := false
	have := map[string]bool{}
	for _, r := range append([]*modfile.Replace(nil), wf.Replace...) {
		if !ours(r.Old.Path) {
			continue
		}
		dir, known := want[r.Old.Path]
		if !known || have[r.Old.Path] {
			if err := wf.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return nil, false, err
			}
			changed = true
			continue
		}
		have[r.Old.Path] = true
		if r.Old.Version == version && r.New.Path == dir && r.New.Version == "" {
			continue
		}
		// Rewrite the line in place, keeping its comments and block.
		tokens := []string{modfile.AutoQuote(r.Old.Path), version, "=>", modfile.AutoQuote(dir)}
		if len(r.Syntax.Token) > 0 && r.Syntax.Token[0] == "replace" {
			tokens = append([]string{"replace"}, tokens...)
		}
		r.Syntax.Token = tokens
		r.Old.Version, r.New.Path, r.New.Version = version, dir, ""
		changed = true
	}
	paths := make([]string, 0, len(want))
	for p := range want {
		if !have[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	block := replaceBlock(wf, ours)
	for _, p := range paths {
		changed = true
		if block != nil {
			block.Line = append(block.Line, &modfile.Line{Token: []string{modfile.AutoQuote(p), version, "=>", modfile.AutoQuote(want[p])}, InBlock: true})
			continue
		}
		if err := wf.AddReplace(p, version, want[p], ""); err != nil {
			return nil, false, err
		}
	}
	if !changed {
		return data, false, nil
	}
	wf.Cleanup()
	return modfile.Format(wf.Syntax), true, nil
}

// replaceBlock returns the replace ( … ) block of go.work that holds a
// replace directive of one of ours, if there is one, for new ones to join.
func replaceBlock(wf *modfile.WorkFile, ours func(string) bool) *modfile.LineBlock {
	for _, stmt := range wf.Syntax.Stmt {
		b, ok := stmt.(*modfile.LineBlock)
		if !ok || len(b.Token) != 1 || b.Token[0] != "replace" {
			continue
		}
		for _, l := range b.Line {
			if len(l.Token) > 0 && ours(strings.Trim(l.Token[0], `"`)) {
				return b
			}
		}
	}
	return nil
}
