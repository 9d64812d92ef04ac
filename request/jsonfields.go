package request

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// tagName is the struct tag that says which fields of a request type make
// its key and its fingerprint (IdentityOf): `idemq:"key"`,
// `idemq:"fingerprint"`, or `idemq:"key,fingerprint"`.
const tagName = "idemq"

// jsonField is a field of a struct type as encoding/json encodes and
// decodes it: its member name and where the value sits.
type jsonField struct {
	name   string       // the member's name
	named  bool         // the json tag gave the name
	index  []int        // the field's index path, through embedded structs
	typ    reflect.Type // the field's type, as declared
	quoted bool         // the ",string" option applies
	goName string       // the Go field, through embedded structs: "Base.ID"
	tag    string       // the idemq tag
	tagged bool         // the field has an idemq tag
	depth  int          // how many embedded structs down it sits
}

// skippedField is a field with an idemq tag that encoding/json leaves out
// of a struct's JSON form, and why.
type skippedField struct {
	goName, tag, why string
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// opaque reports whether encoding/json leaves t's JSON form to t itself
// (a Marshaler or Unmarshaler, of the value or of a pointer to it), so
// its Go fields say nothing of its members.
func opaque(t reflect.Type) bool {
	for _, i := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(i) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(i)) {
			return true
		}
	}
	return false
}

// deref is t without its pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonFields are the members of struct type t as encoding/json sees them,
// by its rules: exported fields (and the exported fields of embedded
// structs, promoted) under their json tag's name or their own; of several
// fields with one name the shallowest wins, then the one whose json tag
// names it, else none does. It returns the members in field order, the
// fields with an idemq tag that lost to another of their name, and those
// encoding/json leaves out.
func jsonFields(t reflect.Type) (fields, hidden []jsonField, skipped []skippedField) {
	type level struct {
		typ    reflect.Type
		index  []int
		goName string
	}
	var all []jsonField
	// As encoding/json does: each struct type is scanned once, at the
	// shallowest depth it is met; one met twice there adds its fields
	// twice, so that neither copy wins.
	visited := map[reflect.Type]bool{}
	var count map[reflect.Type]int
	nextCount := map[reflect.Type]int{t: 1}
	next := []level{{typ: t}}
	for depth := 0; len(next) > 0; depth++ {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				goName := sf.Name
				if l.goName != "" {
					goName = l.goName + "." + sf.Name
				}
				tag, tagged := sf.Tag.Lookup(tagName)
				skip := func(why string) {
					if tagged {
						skipped = append(skipped, skippedField{goName: goName, tag: tag, why: why})
					}
				}
				if sf.Anonymous {
					if ft := deref(sf.Type); !sf.IsExported() && ft.Kind() != reflect.Struct {
						skip("is unexported: encoding/json leaves it out")
						continue
					}
				} else if !sf.IsExported() {
					skip("is unexported: encoding/json leaves it out")
					continue
				}
				jsonTag := sf.Tag.Get("json")
				if jsonTag == "-" {
					skip(`has the json tag "-": encoding/json leaves it out`)
					continue
				}
				name, opts, _ := strings.Cut(jsonTag, ",")
				if !validJSONName(name) {
					name = ""
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				index := append(slices.Clone(l.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					// An embedded struct without a name: its fields are
					// the parent's, one level down.
					skip("is an embedded struct: its fields are the parent's members; tag them")
					if nextCount[ft]++; nextCount[ft] == 1 {
						next = append(next, level{typ: ft, index: index, goName: goName})
					}
					continue
				}
				f := jsonField{name: name, named: name != "", index: index, typ: sf.Type, goName: goName, tag: tag, tagged: tagged, depth: depth}
				if f.name == "" {
					f.name = sf.Name
				}
				if hasOption(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						f.quoted = true
					}
				}
				all = append(all, f)
				if count[l.typ] > 1 {
					all = append(all, f)
				}
			}
		}
	}
	byName := map[string][]jsonField{}
	var names []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			names = append(names, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	for _, name := range names {
		fs := byName[name]
		win := dominant(fs)
		for i, f := range fs {
			switch {
			case i == win:
				fields = append(fields, f)
			case f.tagged && !slices.ContainsFunc(hidden, func(h jsonField) bool { return h.goName == f.goName }):
				hidden = append(hidden, f)
			}
		}
	}
	slices.SortFunc(fields, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return fields, hidden, skipped
}

// dominant is the index in fs (fields of one name) of the one
// encoding/json uses, or -1 when none is: the only one at the shallowest
// depth, else the only one there whose json tag names it.
func dominant(fs []jsonField) int {
	least := fs[0].depth
	for _, f := range fs {
		least = min(least, f.depth)
	}
	win, wins, named, namedWins := -1, 0, -1, 0
	for i, f := range fs {
		if f.depth != least {
			continue
		}
		win, wins = i, wins+1
		if f.named {
			named, namedWins = i, namedWins+1
		}
	}
	switch {
	case wins == 1:
		return win
	case namedWins == 1:
		return named
	}
	return -1
}

// validJSONName reports whether encoding/json takes name, from a json
// tag, as a member's name.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// hasOption reports whether a json tag's options (after the name) hold
// opt.
func hasOption(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
