package request

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// IdentityOf returns the Identity the struct tags of T say, so that who
// a request is can be written once, as its type:
//
//	type Summarise struct {
//		DocumentID string `json:"document_id" idemq:"key"`
//		Version    int    `json:"version" idemq:"key"`
//		Prompt     string `json:"prompt" idemq:"fingerprint"`
//		TraceID    string `json:"trace_id"`
//	}
//
// gives Identity{KeyFields: {"document_id", "version"},
// FingerprintFields: {"prompt"}}. Fields tagged "key" make the key: one
// is KeyField (it must be a string, a number, or a type that encodes
// itself), several are KeyFields. Fields tagged "fingerprint" are
// FingerprintFields; with none, the fingerprint is the Identity's
// default (the whole body, or none with KeyFields). A field is named as
// encoding/json names it (its json tag, else its Go name), through
// nested structs by a dotted path ("document.id") and through embedded
// structs as their parent's members. T without tags (or not a struct)
// gives the zero Identity: the key is the body member DefaultKeyField.
// The namespace is never T's to say.
//
// A tag on a field encoding/json leaves out (unexported, json:"-", or
// hidden by another field of its name), inside a slice, an array or a
// map (no path names it), or not "key" or "fingerprint", is an
// *idem.ConfigError naming the field ("Summarise.Version"); every such
// field is reported, joined.
func IdentityOf[T any]() (Identity, error) {
	return identityOf(reflect.TypeFor[T]())
}

// tagged is a field of a request type named by an idemq tag.
type tagged struct {
	path   string // as an Identity names it (idemjson.CheckField)
	goName string // the Go field, from the type's name: "Summarise.Doc.ID"
	typ    reflect.Type
	quoted bool // the json ",string" option
}

// identityOf is IdentityOf for t.
func identityOf(t reflect.Type) (Identity, error) {
	w := tagWalker{root: typeName(t), stack: map[reflect.Type]bool{}}
	w.walk(t, "", w.root, "")
	var id Identity
	switch len(w.key) {
	case 0:
	case 1:
		f := w.key[0]
		if !keyKind(f.typ, f.quoted) {
			w.bad(f.goName, `idemq:"key"`, fmt.Errorf("is a %s: a key of one field is a string or a number (tag more fields \"key\" to make a key of several, where any value counts)", f.typ))
		}
		id.KeyField = f.path
	default:
		for _, f := range w.key {
			id.KeyFields = append(id.KeyFields, f.path)
		}
	}
	for _, f := range w.fingerprint {
		id.FingerprintFields = append(id.FingerprintFields, f.path)
	}
	if err := errors.Join(w.errs...); err != nil {
		return Identity{}, err
	}
	return id, nil
}

// tagWalker gathers the tagged fields of a type and its nested structs.
type tagWalker struct {
	root             string
	stack            map[reflect.Type]bool // the struct types being walked, against cycles
	key, fingerprint []tagged
	errs             []error
}

func (w *tagWalker) bad(goName, tag string, err error) {
	w.errs = append(w.errs, &idem.ConfigError{Package: "request", Field: goName, Value: tag, Err: err})
}

// walk gathers the tags of t, whose JSON form sits at path (prefix "" for
// the body itself) and whose Go field is goName. where is "" when a path
// names t's members, else why none does ("in a slice").
func (w *tagWalker) walk(t reflect.Type, path, goName, where string) {
	t = deref(t)
	if opaque(t) {
		return // its JSON form is its own; its fields say nothing of it
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		w.walk(t.Elem(), path, goName+"[]", "in a slice or an array")
		return
	case reflect.Map:
		w.walk(t.Elem(), path, goName+"[…]", "in a map")
		return
	case reflect.Struct:
	default:
		return
	}
	if w.stack[t] {
		return // a recursive type: its tags were gathered where it first appears
	}
	w.stack[t] = true
	defer delete(w.stack, t)
	fields, hidden, skipped := jsonFields(t)
	for _, s := range skipped {
		w.bad(goName+"."+s.goName, fmt.Sprintf("%s:%q", tagName, s.tag), errors.New(s.why))
	}
	for _, f := range hidden {
		w.bad(goName+"."+f.goName, fmt.Sprintf("%s:%q", tagName, f.tag), fmt.Errorf("is hidden by another field named %q: encoding/json leaves it out", f.name))
	}
	for _, f := range fields {
		fieldPath := idemjson.EscapeField(f.name)
		if path != "" {
			fieldPath = path + "." + fieldPath
		}
		fieldGo := goName + "." + f.goName
		if f.tagged {
			w.tag(f, fieldPath, fieldGo, where)
		}
		w.walk(f.typ, fieldPath, fieldGo, where)
	}
}

// tag records a tagged field.
func (w *tagWalker) tag(f jsonField, path, goName, where string) {
	tag := fmt.Sprintf("%s:%q", tagName, f.tag)
	if where != "" {
		w.bad(goName, tag, fmt.Errorf("is %s: no field path names it", where))
		return
	}
	var key, fp bool
	for word := range strings.SplitSeq(f.tag, ",") {
		switch strings.TrimSpace(word) {
		case "key":
			key = true
		case "fingerprint":
			fp = true
		default:
			w.bad(goName, tag, fmt.Errorf(`has %q: the words are "key" and "fingerprint"`, word))
			return
		}
	}
	t := tagged{path: path, goName: goName, typ: f.typ, quoted: f.quoted}
	if key {
		w.key = append(w.key, t)
	}
	if fp {
		w.fingerprint = append(w.fingerprint, t)
	}
}

// keyKind reports whether a field of type t can hold a key alone: a
// string or a number in JSON, as Identity.KeyField requires (or a type
// that encodes itself, or an interface, which may be either).
func keyKind(t reflect.Type, quoted bool) bool {
	t = deref(t)
	if quoted || opaque(t) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// typeName names t in errors: "Summarise", or "*Summarise", or what
// reflect prints for a type without a name.
func typeName(t reflect.Type) string {
	d := deref(t)
	if d.Name() == "" {
		return t.String()
	}
	return strings.Repeat("*", strings.Count(t.String(), "*")-strings.Count(d.String(), "*")) + d.Name()
}

// fieldOf finds the Go field a field names in t's JSON form: steps are
// the index paths from t down to it, one per struct. found is false when
// t's JSON form cannot have the member; dynamic is set when the path
// goes through a map, an interface or a type that encodes itself, whose
// members only a value tells.
func fieldOf(t reflect.Type, field string) (steps [][]int, f jsonField, found, dynamic bool) {
	names := splitField(field)
	for i, name := range names {
		t = deref(t)
		if opaque(t) {
			return nil, jsonField{}, true, true
		}
		switch t.Kind() {
		case reflect.Map, reflect.Interface:
			return nil, jsonField{}, true, true
		case reflect.Struct:
		default:
			return nil, jsonField{}, false, false
		}
		fields, _, _ := jsonFields(t)
		k := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == name })
		if k < 0 {
			return nil, jsonField{}, false, false
		}
		steps = append(steps, fields[k].index)
		f = fields[k]
		if i < len(names)-1 {
			t = f.typ
		}
	}
	return steps, f, true, false
}
