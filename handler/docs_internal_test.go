package handler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// docs/handler.md is what a user reads before the code: its options table
// and its defaults must say what the code does, and so must the counts
// table of docs/handler-reference.md. A new option, a changed default or a
// new count fails here until the page says it too.
func TestDocsMatchTheCode(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../docs/handler.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)

	// Every option is in the options table.
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rows := map[string]string{} // option → its table row
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "| `With"):
			name := strings.TrimPrefix(line, "| `")
			rows[name[:strings.IndexByte(name, '(')]] = line
		case strings.HasPrefix(line, "| `Config."): // a field without an option
			name := strings.TrimPrefix(line, "| `")
			rows[name[:strings.IndexByte(name, '`')]] = line
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !strings.HasPrefix(fn.Name.Name, "With") {
				continue
			}
			if _, ok := rows[fn.Name.Name]; !ok {
				t.Errorf("docs/handler.md's options table has no row for %s", fn.Name.Name)
			}
		}
	}

	// The defaults in the table are the code's.
	for option, want := range map[string]string{
		"WithConcurrency":        "| 100",
		"Config.DeadlineReserve": "| 5 s",
		"WithIdem":               "default 40 days",
	} {
		if !strings.Contains(rows[option], want) {
			t.Errorf("docs/handler.md's %s row does not say %q:\n%s", option, want, rows[option])
		}
	}
	if !strings.Contains(doc, "| `KeyField` |") || !strings.Contains(doc, "`"+request.DefaultKeyField+"`, when no other source is set |") {
		t.Errorf("docs/handler.md's table of request.Identity does not say the default key field %s", request.DefaultKeyField)
	}
	if DefaultConcurrency != 100 || defaultDeadlineReserve.String() != "5s" || idem.DefaultExpiry.Hours() != 40*24 {
		t.Errorf("a default changed (concurrency %d, reserve %s, expiry %s): update the table and this test", DefaultConcurrency, defaultDeadlineReserve, idem.DefaultExpiry)
	}
	lease := "records' time left + 10 s"
	if idem.DefaultLeaseMargin.String() != "10s" || defaultDeadlineReserve.String() != "5s" || !strings.Contains(rows["WithIdem"], lease) || !strings.Contains(rows["WithIdem"], "+ 7.5 s") {
		t.Errorf("the default lease (margin %s, reserve %s) is not what the WithIdem row says:\n%s", idem.DefaultLeaseMargin, defaultDeadlineReserve, rows["WithIdem"])
	}

	// Every count the summary line logs has a row in the counts table,
	// with its metric's name.
	raw, err = os.ReadFile("../docs/handler-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	reference := string(raw)
	for _, n := range (counts{}).named() {
		if row := "| `" + n.attr + "` | `" + n.metric + "` |"; !strings.Contains(reference, row) {
			t.Errorf("docs/handler-reference.md's counts table has no row %q", row)
		}
	}
}
