package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// optionPackages are the library packages whose settings take the one
// option shape (docs/options.md), by folder, with the name of their
// config type and of their option type. The test kits (handlertest,
// dynamotest) take options of their own, for tests only.
var optionPackages = map[string][2]string{
	"idem":             {"Config", "Option"},
	"handler":          {"Config", "Option"},
	"consumer":         {"Config", "Option"},
	"producer":         {"Config", "Option"},
	"frontdoor":        {"Config", "Option"},
	"request":          {"FuncConfig", "FuncOption"},
	"durable":          {"Config", "Option"},
	"idemqotel":        {"Config", "Option"},
	"worker":           {"Config", "Option"},
	"idem/dynamostore": {"Config", "Option"},
	"idem/pgstore":     {"Config", "Option"},
	"idem/redisstore":  {"Config", "Option"},
	"idem/memstore":    {"Config", "Option"},
	"idem/s3blob":      {"Config", "Option"},
}

// sentenceEnd is where a sentence of a doc comment ends and the next
// begins.
var sentenceEnd = regexp.MustCompile(`\. +[A-Z(]`)

// Every library package takes options one way: an exported config type
// with a Validate method, an option type func(*Config), WithConfig to pass
// the config whole, and options whose doc comments end with their
// default.
func TestOneOptionShape(t *testing.T) {
	t.Parallel()
	for dir, names := range optionPackages {
		config, option := names[0], names[1]
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files (%v)", dir, err)
		}
		var optionType, withConfig, validate bool
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == option {
							fn, ok := ts.Type.(*ast.FuncType)
							optionType = ok && len(fn.Params.List) == 1 && spelled(fn.Params.List[0].Type) == "*"+config
						}
					}
				case *ast.FuncDecl:
					if d.Recv != nil {
						if d.Name.Name == "Validate" && strings.TrimPrefix(spelled(d.Recv.List[0].Type), "*") == config {
							validate = true
						}
						continue
					}
					if !d.Name.IsExported() || d.Type.Results == nil || len(d.Type.Results.List) != 1 || spelled(d.Type.Results.List[0].Type) != option {
						continue
					}
					if d.Name.Name == "WithConfig" {
						withConfig = len(d.Type.Params.List) == 1 && spelled(d.Type.Params.List[0].Type) == config
					}
					if last := lastSentence(d.Doc); !strings.HasPrefix(last, "Defaults to ") && !strings.HasPrefix(last, "Default to ") {
						t.Errorf("%s.%s: its doc comment ends %q, not with its default (\"Defaults to ...\")", dir, d.Name.Name, last)
					}
				}
			}
		}
		if !optionType {
			t.Errorf("%s: no type %s func(*%s)", dir, option, config)
		}
		if !withConfig {
			t.Errorf("%s: no WithConfig(%s) %s, to pass the config whole", dir, config, option)
		}
		if !validate {
			t.Errorf("%s: no %s.Validate, the resolve step without its result", dir, config)
		}
	}
}

// spelled spells a type expression as written: Config, *Config.
func spelled(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + spelled(e.X)
	case *ast.IndexExpr: // a generic type's instance
		return spelled(e.X)
	}
	return ""
}

// lastSentence is the last sentence of the doc comment's prose (its code
// blocks left out).
func lastSentence(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	var prose []string
	for _, line := range strings.Split(doc.Text(), "\n") {
		if !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "  ") {
			prose = append(prose, line)
		}
	}
	text := strings.TrimSpace(strings.Join(prose, " "))
	ends := sentenceEnd.FindAllStringIndex(text, -1)
	if len(ends) == 0 {
		return text
	}
	return strings.TrimLeft(text[ends[len(ends)-1][0]+1:], " ")
}
