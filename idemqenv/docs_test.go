package idemqenv

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/environment.md's table of variables from the table")

// The markers around the generated table in docs/environment.md.
const (
	docsBegin = "<!-- idemqenv: the table below is generated from idemqenv.Vars; go test ./idemqenv -run TestDocs -update rewrites it -->\n"
	docsEnd   = "<!-- idemqenv: end -->\n"
)

// docsTable is the table of variables as docs/environment.md shows it.
func docsTable() string {
	var b strings.Builder
	b.WriteString("| variable | read by | meaning | default |\n|---|---|---|---|\n")
	for _, v := range vars {
		readBy := strings.ReplaceAll(v.Programs.String(), "|", ", ")
		if v.Flag != "" {
			readBy = strings.Replace(readBy, "command", "command (`--"+v.Flag+"`)", 1)
		}
		if v.ReferenceOnly {
			readBy += " (the reference worker only)"
		}
		meaning := v.Doc
		if v.Needs != "" {
			meaning += "; only with `" + v.Needs + "`"
		}
		def := v.Default
		if def == "" {
			def = "none"
		}
		b.WriteString("| `" + v.Name + "` | " + readBy + " | " + strings.ReplaceAll(meaning, "|", `\|`) + " | " + strings.ReplaceAll(def, "|", `\|`) + " |\n")
	}
	for _, r := range retired {
		b.WriteString("| `" + r.name + "` | none: refused | no longer read: " + strings.ReplaceAll(r.why, "|", `\|`) + " | — |\n")
	}
	return b.String()
}

// docs/environment.md's table of variables is the table's.
func TestDocs(t *testing.T) {
	path := filepath.Join("..", "docs", "environment.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	begin, end := strings.Index(doc, docsBegin), strings.Index(doc, docsEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no table between the markers %q and %q", path, docsBegin, docsEnd)
	}
	got, want := doc[begin+len(docsBegin):end], docsTable()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:begin+len(docsBegin)]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of variables is not the table's: run go test ./idemqenv -run TestDocs -update\n got:\n%s\nwant:\n%s", path, got, want)
}
