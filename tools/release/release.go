package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ReleaseConfig is what Release releases, and how.
type ReleaseConfig struct {
	// Root is the repository's root.
	Root string
	// Version is the version released, vX.Y.Z.
	Version string
	// APIDiff is the apidiff binary scripts/release-check.sh runs.
	// Defaults to bin/apidiff under Root (make release installs it).
	APIDiff string
	// Prove runs the module-proxy proof (harness/internal/proxyproof)
	// from the tags once they are made. Defaults to false.
	Prove bool
	// Now dates the changelog's section. Defaults to time.Now.
	Now func() time.Time
	// Stdout and Stderr receive what it does and what its commands print.
	// Default to io.Discard.
	Stdout, Stderr io.Writer
}

// Release releases every released module of the workspace at root as
// Version, in steps that each check whether they are done, so that it
// may run again, on this clone or on another one, after any of them:
//
//  1. The bump commit, unless the go.mod files require their siblings at
//     Version and CHANGELOG.md has its section already: every sibling
//     requirement set to Version (Bump), go.work's replace directives
//     with them (Work), README.md's version (Readme), the Unreleased
//     section turned
//     into Version's (ReleaseSection), the modules still tidy,
//     scripts/release-check.sh passed (the API against the last release),
//     then one commit. A failure leaves the working tree as it was.
//  2. Every released module's tag (Module.Tag), annotated, at the bump
//     commit; a tag already there must point at it.
//  3. A commit naming the bump commit in Version's section
//     (RecordCommit), unless it is named already.
//  4. With Prove, the module-proxy proof from the tags.
//
// It needs a clean working tree, and pushes nothing.
func Release(ctx context.Context, c ReleaseConfig) error {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.APIDiff == "" {
		c.APIDiff = filepath.Join(c.Root, "bin", "apidiff")
	}
	v := c.Version
	if err := CheckVersion(v); err != nil {
		return err
	}
	if status, err := clean(c.Root); err != nil {
		return err
	} else if status != "" {
		return fmt.Errorf("the working tree has changes; commit or stash them first:\n%s", status)
	}
	ws, err := ReadWorkspace(ReadDir(c.Root))
	if err != nil {
		return err
	}
	logPath := filepath.Join(c.Root, "CHANGELOG.md")
	log, err := os.ReadFile(logPath)
	if err != nil {
		return err
	}

	// 1. The bump commit.
	bumped, why, err := Bumped(ws, ReadDir(c.Root), v)
	if err != nil {
		return err
	}
	var commit string
	if bumped && HasSection(string(log), v) {
		commit, err = bumpCommit(c.Root, ws, string(log), v)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "release: %s's bump commit is there: %.12s\n", v, commit)
	} else {
		if !bumped {
			fmt.Fprintf(c.Stdout, "release: bumping: %s\n", why)
		}
		if commit, err = bump(ctx, c, ws, string(log)); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "release: committed the bump to %s: %.12s\n", v, commit)
	}

	// 2. The tags.
	for _, m := range ws.Released() {
		tag := m.Tag(v)
		switch at := tagCommit(c.Root, tag); at {
		case commit:
			fmt.Fprintf(c.Stdout, "release: tag %s is there\n", tag)
		case "":
			if _, err := git(c.Root, "tag", "-a", "-m", "release "+tag, tag, commit); err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "release: tagged %s\n", tag)
		default:
			return fmt.Errorf("tag %s points at %.12s, not at %s's bump commit %.12s: delete it (git tag -d %s) if it was never pushed", tag, at, v, commit, tag)
		}
	}

	// 3. The changelog names the commit.
	log, err = os.ReadFile(logPath)
	if err != nil {
		return err
	}
	recorded, err := RecordCommit(string(log), v, commit)
	if err != nil {
		return err
	}
	if recorded != string(log) {
		if err := os.WriteFile(logPath, []byte(recorded), 0o644); err != nil {
			return err
		}
		if _, err := git(c.Root, "commit", "-q", "-m", fmt.Sprintf("CHANGELOG: %s is commit %.12s", v, commit), "--", "CHANGELOG.md"); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "release: CHANGELOG.md names %s's commit\n", v)
	}

	// 4. The proof.
	if c.Prove {
		fmt.Fprintf(c.Stdout, "release: proving %s from a module proxy made from its tags\n", v)
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^TestModuleProxy$", "./internal/proxyproof")
		cmd.Dir = filepath.Join(c.Root, "harness")
		cmd.Env = append(os.Environ(), ProofVersionEnv+"="+v)
		cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("the module-proxy proof of %s failed (%v): the tags are made but not pushed", v, err)
		}
	}
	var tags []string
	for _, m := range ws.Released() {
		tags = append(tags, m.Tag(v))
	}
	fmt.Fprintf(c.Stdout, "release: %s is %d tags at %.12s; push the branch, then the tags:\n  git push origin HEAD %s\n", v, len(tags), commit, strings.Join(tags, " "))
	return nil
}

// ProofVersionEnv names the variable that makes the module-proxy proof
// prove a release (its tags, or the commit CHANGELOG.md names) rather
// than the working tree.
const ProofVersionEnv = "IDEMQ_PROOF_VERSION"

// bumpCommit finds the bump commit of a release whose changes are in:
// the commit CHANGELOG.md names, or else the one that added version's
// section. Its go.mod files must require their siblings at version.
func bumpCommit(root string, ws Workspace, log, version string) (string, error) {
	commit := RecordedCommit(log, version)
	if commit == "" {
		out, err := git(root, "log", "--reverse", "--format=%H", "-S"+heading(version), "--", "CHANGELOG.md")
		if err != nil {
			return "", err
		}
		commit, _, _ = strings.Cut(out, "\n")
		if commit == "" {
			return "", fmt.Errorf("no commit added CHANGELOG.md's section for %s", version)
		}
	}
	if resolve(root, commit) == "" {
		return "", fmt.Errorf("CHANGELOG.md names commit %s for %s, which this clone lacks", commit, version)
	}
	bumped, why, err := Bumped(ws, Commit{Root: root, Hash: commit}.Read, version)
	if err != nil {
		return "", err
	}
	if !bumped {
		return "", fmt.Errorf("commit %.12s holds %s's section but not its bump: %s", commit, version, why)
	}
	return commit, nil
}

// bump makes the bump commit and returns it. On failure it puts back the
// files it changed.
func bump(ctx context.Context, c ReleaseConfig, ws Workspace, log string) (commit string, err error) {
	v := c.Version
	for _, m := range ws.Released() {
		if at := tagCommit(c.Root, m.Tag(v)); at != "" {
			return "", fmt.Errorf("tag %s exists (at %.12s) but the tree is not %s's release: delete the tags if they were never pushed", m.Tag(v), at, v)
		}
	}
	var changed []string
	defer func() {
		if err != nil && len(changed) > 0 {
			if _, rerr := git(c.Root, append([]string{"checkout", "--"}, changed...)...); rerr != nil {
				err = fmt.Errorf("%w (and putting the files back: %v)", err, rerr)
			}
		}
	}()
	for _, m := range ws {
		name := m.File("go.mod")
		full := filepath.Join(c.Root, filepath.FromSlash(name))
		data, err := os.ReadFile(full)
		if err != nil {
			return "", err
		}
		out, diff, err := Bump(name, data, ws.Paths(), v)
		if err != nil {
			return "", err
		}
		if diff {
			if err := os.WriteFile(full, out, 0o644); err != nil {
				return "", err
			}
			changed = append(changed, name)
		}
	}
	workPath := filepath.Join(c.Root, "go.work")
	work, err := os.ReadFile(workPath)
	if err != nil {
		return "", err
	}
	if work, diff, err := Work(work, ws, v); err != nil {
		return "", err
	} else if diff {
		if err := os.WriteFile(workPath, work, 0o644); err != nil {
			return "", err
		}
		changed = append(changed, "go.work")
	}
	readmePath := filepath.Join(c.Root, "README.md")
	if readme, err := os.ReadFile(readmePath); err == nil {
		if text := Readme(string(readme), v); text != string(readme) {
			if err := os.WriteFile(readmePath, []byte(text), 0o644); err != nil {
				return "", err
			}
			changed = append(changed, "README.md")
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if !HasSection(log, v) {
		text, err := ReleaseSection(log, v, c.Now().UTC().Format(time.DateOnly))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(c.Root, "CHANGELOG.md"), []byte(text), 0o644); err != nil {
			return "", err
		}
		changed = append(changed, "CHANGELOG.md")
	}
	for _, m := range ws {
		differ, err := Tidy(c.Root, ws, m, false)
		if err != nil {
			return "", err
		}
		if len(differ) > 0 {
			return "", fmt.Errorf("after the bump %s is not tidy", strings.Join(differ, ", "))
		}
	}
	fmt.Fprintf(c.Stdout, "release: scripts/release-check.sh %s\n", v)
	check := exec.CommandContext(ctx, "bash", filepath.Join(c.Root, "scripts", "release-check.sh"), v)
	check.Dir = c.Root
	check.Env = append(os.Environ(), "APIDIFF="+c.APIDiff)
	check.Stdout, check.Stderr = c.Stdout, c.Stderr
	if err := check.Run(); err != nil {
		return "", fmt.Errorf("scripts/release-check.sh %s refused it (%v): nothing is committed", v, err)
	}
	if _, err := git(c.Root, append([]string{"commit", "-q", "-m", "release " + v + ": every module requires its siblings at " + v + "; CHANGELOG section " + v, "--"}, changed...)...); err != nil {
		return "", err
	}
	changed = nil
	return git(c.Root, "rev-parse", "HEAD")
}
