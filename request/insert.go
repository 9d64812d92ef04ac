package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// insertKey returns the JSON object text with key, as a JSON string, at
// field (a name or a dotted path, well formed), which holds nothing, null
// or "": a new member goes first in its object, the objects of the path
// that are missing (or null) are made, and every other byte is kept.
func insertKey(text, field, key string) (string, error) {
	value, err := quote(key)
	if err != nil {
		return "", err
	}
	return insertAt(text, splitField(field), value)
}

// insertAt puts value at the path names into the JSON object obj.
func insertAt(obj string, names []string, value string) (string, error) {
	open, members, err := scanObject(obj)
	if err != nil {
		return "", err
	}
	var at *member // the last member of the name counts, as in idemjson
	for i := range members {
		if members[i].name == names[0] {
			at = &members[i]
		}
	}
	if at == nil {
		name, err := quote(names[0])
		if err != nil {
			return "", err
		}
		add := name + ":" + nest(names[1:], value)
		if len(members) > 0 {
			add += ","
		}
		return obj[:open+1] + add + obj[open+1:], nil
	}
	old := obj[at.start:at.end]
	switch {
	case old == "null", len(names) == 1 && old == `""`:
		return obj[:at.start] + nest(names[1:], value) + obj[at.end:], nil
	case len(names) > 1 && strings.HasPrefix(old, "{"):
		inner, err := insertAt(old, names[1:], value)
		if err != nil {
			return "", err
		}
		return obj[:at.start] + inner + obj[at.end:], nil
	}
	return "", fmt.Errorf("member %q holds %.40s, not an object", names[0], old)
}

// nest is value inside one object per name: {"a":{"b":value}}.
func nest(names []string, value string) string {
	for i := len(names) - 1; i >= 0; i-- {
		name, _ := quote(names[i]) // a field is UTF-8 (CheckField)
		value = "{" + name + ":" + value + "}"
	}
	return value
}

// member is a member of a JSON object: its name, and where its value's
// text starts and ends.
type member struct {
	name       string
	start, end int
}

// scanObject returns where obj's opening brace is and its members, in
// order.
func scanObject(obj string) (open int, members []member, err error) {
	dec := json.NewDecoder(strings.NewReader(obj))
	dec.UseNumber()
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return 0, nil, errors.New("not a JSON object")
	}
	open = int(dec.InputOffset()) - 1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, nil, err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, nil, err
		}
		end := int(dec.InputOffset())
		members = append(members, member{name: name, start: end - len(raw), end: end})
	}
	return open, members, nil
}

// quote writes s as a JSON string, without escaping <, > and &.
func quote(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// splitField splits a well-formed field (idemjson.CheckField) into its
// names, unescaping `\.` and `\\`.
func splitField(field string) []string {
	var names []string
	var b strings.Builder
	for i := 0; i < len(field); i++ {
		switch c := field[i]; c {
		case '.':
			names = append(names, b.String())
			b.Reset()
		case '\\':
			i++
			b.WriteByte(field[i])
		default:
			b.WriteByte(c)
		}
	}
	return append(names, b.String())
}
