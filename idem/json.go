package idem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"
)

// JSONObject is a JSON object body decoded once, so its key and its
// fingerprint are read from one decode. Numbers keep their spelling
// (json.Number); members are string, json.Number, bool, nil, []any or
// map[string]any values.
type JSONObject struct {
	members map[string]any
}

// ParseJSONObject decodes body, which must be exactly one JSON object. It
// takes a string (an SQS message's body, read without a copy) or bytes.
func ParseJSONObject[B string | []byte](body B) (JSONObject, error) {
	var r io.Reader
	switch b := any(body).(type) {
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return JSONObject{}, fmt.Errorf("body is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return JSONObject{}, errors.New("body is not valid JSON: data after the top-level value")
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return JSONObject{}, fmt.Errorf("body is not a JSON object but %s", JSONKind(doc))
	}
	return JSONObject{members: m}, nil
}

// Field returns the value of a member, or of a dotted path through nested
// objects ("document.id"); an exact member name that contains dots wins
// over the path. ok is false when the value is absent or null.
func (o JSONObject) Field(path string) (v any, ok bool) {
	v = lookup(o.members, path)
	return v, v != nil
}

// Hash returns the SHA-256 of the RFC 8785 canonical JSON of {field: value}
// for the named fields, so member order, white space and number spelling
// do not change it. A field that is absent or null is an error. It is what
// JSONKey and JSONFingerprint hash.
func (o JSONObject) Hash(fields ...string) (string, error) {
	if len(fields) == 0 {
		return "", errors.New("no fields named")
	}
	fields = slices.Compact(slices.Sorted(slices.Values(fields)))
	subset := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := o.Field(f)
		if !ok {
			return "", fmt.Errorf("field %q is absent or null", f)
		}
		subset[f] = v
	}
	raw, err := json.Marshal(subset)
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", err
	}
	return Fingerprint(canon), nil
}

// JSONKind names the JSON type of a decoded value, for error messages.
func JSONKind(v any) string {
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

// lookup follows a member name, or a dotted path through nested objects.
// It returns nil for an absent or null value.
func lookup(v any, path string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if v, ok := obj[path]; ok {
		return v
	}
	head, rest, found := strings.Cut(path, ".")
	if !found {
		return nil
	}
	return lookup(obj[head], rest)
}
