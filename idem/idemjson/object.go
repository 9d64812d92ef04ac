package idemjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

// Object is a JSON object body decoded once, so its key and its
// fingerprint are read from one decode. Members are string, json.Number
// (spelled as sent), bool, nil, []any or map[string]any values. Strings are
// kept exact: one with a lone surrogate escape ("\ud800") or bytes that are
// not UTF-8 is not valid UTF-8 (encoding/json would read U+FFFD), and the
// key rules refuse it where it is hashed. Of a member name that appears
// twice in one object the last counts, as in encoding/json.
type Object struct {
	members map[string]any
}

// Parse decodes body, which must be exactly one JSON object. It
// takes a string (an SQS message's body, read without a copy) or bytes.
func Parse[B string | []byte](body B) (Object, error) {
	d := decoder{s: string(body)}
	doc, err := d.decode()
	if err != nil {
		return Object{}, fmt.Errorf("body is not valid JSON: %w", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return Object{}, fmt.Errorf("body is not a JSON object but %s", Kind(doc))
	}
	return Object{members: m}, nil
}

// Field returns the value field names: a member name, or a dotted path
// through nested objects ("document.id"), with `\.` for a dot that is part
// of a name (see CheckField). ok is false when the value is absent or null,
// or field is not well formed.
func (o Object) Field(field string) (v any, ok bool) {
	v = lookup(o.members, field)
	return v, v != nil
}

// Hash returns the SHA-256 of the canonical JSON of {field: value} for the
// named fields: RFC 8785's form with numbers kept exact ("Key rules" in
// docs/protocol.md), so member order, white space and the spelling of a
// number or a string do not change it, while two different values always
// do: 9007199254740993 and 9007199254740992 are two numbers. The fields' order and
// repeats do not matter. A field that is absent or null, not well formed,
// or whose value holds a string that is not Unicode text is an error. It is
// what Key and Fingerprint hash.
func (o Object) Hash(fields ...string) (string, error) {
	sorted, err := sortFields(fields)
	if err != nil {
		return "", err
	}
	return o.hash(sorted)
}

// errNoNamespace is returned by Key for an empty namespace: a key without
// one could collide with another function's.
var errNoNamespace = fmt.Errorf("%w: the namespace is empty", idem.ErrNoKey)

// Key makes the key Key makes of this object, from the same fields.
func (o Object) Key(namespace string, fields ...string) (idem.Key, error) {
	if namespace == "" {
		return "", errNoNamespace
	}
	sorted, err := sortFields(fields)
	if err != nil {
		return "", fmt.Errorf("%w: %w", idem.ErrNoKey, err)
	}
	sum, err := o.hash(sorted)
	if err != nil {
		return "", fmt.Errorf("%w: %w", idem.ErrNoKey, err)
	}
	return idem.ClientKey(namespace, "json("+strings.Join(sorted, ",")+"):"+sum)
}

// NaturalValue makes the value of a natural key from the named fields:
// NaturalValue(field, text, field, text, ...) over the fields sorted, each
// once, so their order in the call does not matter:
//
//	document_id:4471:version:9
//
// A field's text is a string's characters, a number's exact value in
// canonical form (so 9, 9.0, 9e0 and "9" are one text, and 9007199254740993
// is not 9007199254740992), true or false, or an object's or an array's
// canonical JSON. A field that is absent or null, or holds a string that is
// empty or not Unicode text, is idem.ErrNoKey. Fields are as in Hash (see
// CheckField).
func (o Object) NaturalValue(fields ...string) (string, error) {
	sorted, err := sortFields(fields)
	if err != nil {
		return "", fmt.Errorf("%w: %w", idem.ErrNoKey, err)
	}
	parts := make([]string, 0, 2*len(sorted))
	for _, f := range sorted {
		v := lookup(o.members, f)
		if v == nil {
			return "", fmt.Errorf("%w: %w", idem.ErrNoKey, o.absent(f))
		}
		text, err := naturalText(v)
		if err != nil {
			return "", fmt.Errorf("%w: field %q: %w", idem.ErrNoKey, f, err)
		}
		parts = append(parts, f, text)
	}
	return idem.NaturalValue(parts...)
}

// naturalText is a value's text in a natural key.
func naturalText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return "", errNotText
		}
		if v == "" {
			return "", errors.New("the string is empty")
		}
		return v, nil
	case json.Number:
		b, err := appendNumber(nil, string(v))
		return string(b), err
	}
	b, err := appendCanonical(nil, v)
	return string(b), err
}

// sortFields checks fields and returns them in one order, RFC 8785's
// (UTF-16 code units), each once: the order of the key's label and of its
// hash.
func sortFields(fields []string) ([]string, error) {
	if len(fields) == 0 {
		return nil, errors.New("no fields named")
	}
	for _, f := range fields {
		if err := CheckField(f); err != nil {
			return nil, err
		}
	}
	return slices.Compact(slices.SortedFunc(slices.Values(fields), compareUTF16)), nil
}

// hash hashes sorted, well-formed fields.
func (o Object) hash(fields []string) (string, error) {
	buf := make([]byte, 0, 256)
	buf = append(buf, '{')
	for i, f := range fields {
		v := lookup(o.members, f)
		if v == nil {
			return "", o.absent(f)
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf, _ = appendString(buf, f) // well formed, so UTF-8
		buf = append(buf, ':')
		var err error
		if buf, err = appendCanonical(buf, v); err != nil {
			return "", fmt.Errorf("field %q: %w", f, err)
		}
	}
	return idem.Fingerprint(append(buf, '}')), nil
}

// absent says that field has no value, and how to name a member whose
// name is the field's text, when the object has one.
func (o Object) absent(field string) error {
	if lit := EscapeField(field); lit != field && lookup(o.members, lit) != nil {
		return fmt.Errorf("field %q is absent or null (a dot separates names: write %q for the member named %q)", field, lit, field)
	}
	return fmt.Errorf("field %q is absent or null", field)
}

// canonicalJSON returns the canonical form of a whole JSON document (any
// value), refusing a member name that appears twice in one object, as RFC
// 8785 does.
func canonicalJSON(body []byte) ([]byte, error) {
	d := decoder{s: string(body), unique: true}
	v, err := d.decode()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return appendCanonical(make([]byte, 0, len(body)), v)
}

// Kind names the JSON type of a decoded value, for error messages.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
