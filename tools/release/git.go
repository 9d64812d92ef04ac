package release

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// git runs git in the repository at root and returns its standard output,
// trimmed; an error carries its standard error.
func git(root string, args ...string) (string, error) {
	out, err := gitBytes(root, args...)
	return strings.TrimSpace(string(out)), err
}

func gitBytes(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	// A pager or a prompt would hang; the output is parsed, so no colour.
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// Commit is a commit of the repository at Root.
type Commit struct {
	Root, Hash string
}

// Read returns the file name (slash-separated, relative to the root) as
// the commit holds it.
func (c Commit) Read(name string) ([]byte, error) {
	return gitBytes(c.Root, "show", c.Hash+":"+name)
}

// resolve returns the full hash of the commit rev names (a tag's commit
// for a tag), or "" when rev names none.
func resolve(root, rev string) string {
	out, err := git(root, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// tagCommit returns the commit the tag points at, or "" when there is no
// such tag.
func tagCommit(root, tag string) string {
	return resolve(root, "refs/tags/"+tag)
}

// clean reports what git status shows, "" when the working tree is clean.
func clean(root string) (string, error) {
	return git(root, "status", "--porcelain", "--untracked-files=normal")
}
