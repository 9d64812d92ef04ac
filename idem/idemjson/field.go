package idemjson

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A field names a value in a JSON object for Key, Fingerprint and
// Object: a member name, or a path of member names separated by dots
// ("document.id" is the member "id" of the member "document"). A dot or a
// backslash that is part of a name is escaped with a backslash: `order\.id`
// is the member named "order.id" (see EscapeField). A dot always separates
// names, so a member whose name has a dot never stands in for the path
// spelled alike, and a body cannot steer itself onto another request's key
// by adding one.

// CheckField returns an error if field is not a well-formed field: empty,
// with an empty name ("a..b", ".a"), with a backslash before anything but
// a dot or a backslash, or not UTF-8.
func CheckField(field string) error {
	if !utf8.ValidString(field) {
		return fmt.Errorf("field %q is not UTF-8", field)
	}
	empty := true
	for i := 0; i < len(field); i++ {
		switch field[i] {
		case '.':
			if empty {
				return fmt.Errorf("field %q has an empty name", field)
			}
			empty = true
			continue
		case '\\':
			if i+1 == len(field) || field[i+1] != '.' && field[i+1] != '\\' {
				return fmt.Errorf("field %q has a backslash before neither a dot nor a backslash", field)
			}
			i++
		}
		empty = false
	}
	if empty {
		return fmt.Errorf("field %q has an empty name", field)
	}
	return nil
}

var fieldEscaper = strings.NewReplacer(`\`, `\\`, `.`, `\.`)

// EscapeField returns the field that names the member name itself, its
// dots and backslashes escaped: EscapeField("order.id") is `order\.id`.
func EscapeField(name string) string { return fieldEscaper.Replace(name) }

// lookup returns the value field names in obj, nil when it is absent or
// null or field is not well formed.
func lookup(obj map[string]any, field string) any {
	if CheckField(field) != nil {
		return nil
	}
	escaped := strings.IndexByte(field, '\\') >= 0
	for {
		var name string
		name, field = nextName(field, escaped)
		v := obj[name]
		if field == "" {
			return v
		}
		var ok bool
		if obj, ok = v.(map[string]any); !ok {
			return nil
		}
	}
}

// nextName splits the first name off a well-formed field, unescaping it
// when the field has escapes.
func nextName(field string, escaped bool) (name, rest string) {
	if !escaped {
		name, rest, _ = strings.Cut(field, ".")
		return name, rest
	}
	var b strings.Builder
	for i := 0; i < len(field); i++ {
		switch c := field[i]; c {
		case '.':
			return b.String(), field[i+1:]
		case '\\':
			i++
			b.WriteByte(field[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
