// Package doclinks holds a test of the repository's Markdown: every
// relative link in README.md, CHANGELOG.md and docs/*.md names a file
// that exists and, with a #fragment, a heading of that file.
package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// link is a Markdown inline link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// fence opens or closes a code block.
var fence = regexp.MustCompile("^\\s*(```|~~~)")

// inlineCode is a code span, whose text is no link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// anchor is the fragment GitHub gives a heading: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', the rest dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// line is one line of a Markdown file, numbered from 1.
type line struct {
	n    int
	text string
}

// lines returns a Markdown file's lines outside code blocks.
func lines(text string) []line {
	var out []line
	in := false
	for i, l := range strings.Split(text, "\n") {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			out = append(out, line{i + 1, l})
		}
	}
	return out
}

// anchors returns the fragments of a Markdown file's headings, a
// repeated one numbered as GitHub numbers it (-1, -2, ...).
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range lines(text) {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		h := strings.TrimLeft(l.text, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		a := anchor(strings.TrimSpace(h))
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// docs returns the Markdown files whose links are checked.
func docs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CHANGELOG.md"))
}

func TestRelativeLinksResolve(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	read := func(path string) (string, bool) {
		if s, ok := texts[path]; ok {
			return s, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false
		}
		texts[path] = string(b)
		return string(b), true
	}
	checked := 0
	for _, file := range docs(t) {
		text, ok := read(file)
		if !ok {
			t.Fatalf("cannot read %s", file)
		}
		name, _ := filepath.Rel(root, file)
		for _, l := range lines(text) {
			for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: %q: no file %s", name, l.n, target, path)
						continue
					}
				}
				checked++
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				destText, _ := read(dest)
				if !anchors(destText)[frag] {
					t.Errorf("%s:%d: %q: no heading #%s in %s", name, l.n, target, frag, filepath.Base(dest))
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the test reads nothing")
	}
}

func TestAnchor(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"Run any function once per key: `idem.Do`":          "run-any-function-once-per-key-idemdo",
		"Use the worker's settings in your own function":    "use-the-workers-settings-in-your-own-function",
		"Concurrent invocations (Lambda Managed Instances)": "concurrent-invocations-lambda-managed-instances",
		"What a result costs by size":                       "what-a-result-costs-by-size",
		"The `idemq` command":                               "the-idemq-command",
		"Changing: `release`, `purge`":                      "changing-release-purge",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}
