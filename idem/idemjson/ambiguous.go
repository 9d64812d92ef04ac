package idemjson

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrAmbiguous is wrapped by every *AmbiguousError: a body whose members
// decoders read onto one field differently.
var ErrAmbiguous = errors.New("idemjson: ambiguous members")

// AmbiguousError is a body in which two members of one object stand for
// the same name of a field, so decoders disagree on the field's value:
// the same name twice (this package and encoding/json take the last,
// other decoders the first), or two names encoding/json matches to one
// struct field, which it does ignoring case (Unicode simple folding:
// "IDEMPOTENCY_KEY", "Idempotency_Key" and "idempotency_\u212aey", with a
// Kelvin sign, are all "idempotency_key") and then takes the last.
type AmbiguousError struct {
	// Field is the field, as named to CheckUnambiguous, whose path goes
	// through the two members.
	Field string
	// Object is the field that names the object holding both members
	// (EscapeField of each name on the way, joined by dots); "" for the
	// body itself.
	Object string
	// First and Second are the two members' names as decoded, in the
	// order of the body.
	First, Second string
}

// Error names both members and the field.
func (e *AmbiguousError) Error() string {
	where := "the body"
	if e.Object != "" {
		where = fmt.Sprintf("the object at %q", e.Object)
	}
	if e.First == e.Second {
		return fmt.Sprintf("%s holds the member %q twice, so field %q has no one value (decoders differ on which counts): send it once",
			where, e.First, e.Field)
	}
	return fmt.Sprintf("%s holds the members %q and %q, which encoding/json reads as one (it matches names ignoring case, and the last wins), so field %q has no one value: send one of them",
		where, e.First, e.Second, e.Field)
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// CheckUnambiguous returns an *AmbiguousError when, along the path of any
// of fields (see CheckField) through body, an object holds two members
// for one name: the same name twice, or two names equal but for case
// (AmbiguousError). Such a body means one thing to this package and
// another to a worker that decodes it with encoding/json, so a key read
// from it could name another request than the one that runs. Only the
// objects on the fields' paths are checked, each name of a path against
// the members of its object. body must be one JSON object (else the
// error says why it is not); a field that is not well formed is an error.
// It decodes body once more than Parse does; it does not change what
// Parse, Key or Fingerprint accept.
func CheckUnambiguous[B string | []byte](body B, fields ...string) error {
	root := &pathNode{}
	for _, f := range fields {
		if err := CheckField(f); err != nil {
			return err
		}
		root.add(f)
	}
	d := decoder{s: string(body)}
	d.space()
	if d.i >= len(d.s) || d.s[d.i] != '{' {
		if _, err := Parse(body); err != nil {
			return err // why it is not one JSON object
		}
		return errors.New("body is not a JSON object")
	}
	if err := d.checkObject(root, ""); err != nil {
		return err
	}
	d.space()
	if d.i < len(d.s) {
		return fmt.Errorf("body is not valid JSON: %w", errors.New("data after the top-level value"))
	}
	return nil
}

// pathNode is the names of the checked fields below one object, keyed by
// their folded form (foldName), so that every member encoding/json would
// match to a name finds its node.
type pathNode struct {
	field    string // the first field, as named, whose path goes through here
	children map[string]*pathNode
}

// add puts field's path under n.
func (n *pathNode) add(field string) {
	escaped := strings.IndexByte(field, '\\') >= 0
	for rest := field; rest != ""; {
		var name string
		name, rest = nextName(rest, escaped)
		if n.children == nil {
			n.children = map[string]*pathNode{}
		}
		key := foldName(name)
		child := n.children[key]
		if child == nil {
			child = &pathNode{field: field}
			n.children[key] = child
		}
		n = child
	}
}

// foldName is name as encoding/json compares member names with a struct
// field's: each rune made upper case of its lower case (so two names fold
// alike exactly when strings.EqualFold says they are equal), bytes that
// are not UTF-8 read as U+FFFD as encoding/json decodes them.
func foldName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name { // an invalid byte ranges as U+FFFD
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		b.WriteRune(unicode.ToUpper(unicode.ToLower(r)))
	}
	return b.String()
}

// checkObject reads the object at d.i (its '{' next), checking its
// members against n's names, and the objects below the members on a
// path likewise. at is the field naming the object, for errors.
func (d *decoder) checkObject(n *pathNode, at string) error {
	if err := d.enter(); err != nil {
		return err
	}
	invalid := func(err error) error { return fmt.Errorf("body is not valid JSON: %w", err) }
	first := map[string]string{} // folded name → the first member's name
	return d.members(invalid, func(name string) error {
		key := foldName(name)
		child := n.children[key]
		if child != nil {
			if prev, seen := first[key]; seen {
				return &AmbiguousError{Field: child.field, Object: at, First: prev, Second: name}
			}
			first[key] = name
		}
		d.space()
		if child != nil && child.children != nil && d.i < len(d.s) && d.s[d.i] == '{' {
			below := EscapeField(name)
			if at != "" {
				below = at + "." + below
			}
			return d.checkObject(child, below)
		}
		if _, err := d.value(); err != nil {
			return invalid(err)
		}
		return nil
	})
}
