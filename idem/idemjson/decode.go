package idemjson

import (
	"encoding/json"
	"errors"
	"fmt"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does,
// so a body of ten thousand '[' cannot exhaust the stack.
const maxDepth = 10000

var errEnd = errors.New("unexpected end of JSON input")

// decoder reads one JSON text (RFC 8259) into nil, bool, string,
// json.Number, []any and map[string]any values. Unlike encoding/json it
// keeps strings exact: a lone surrogate escape ("\ud800") is kept as its
// three-byte WTF-8 form and bytes that are not UTF-8 are kept as they are,
// where encoding/json reads both as U+FFFD. Such a string is not valid
// UTF-8, so the key rules can refuse it where it is hashed instead of
// merging it with every other. Strings without escapes share the input's
// memory.
type decoder struct {
	s     string
	i     int
	depth int
	// unique refuses a member name that appears twice in one object, as
	// RFC 8785 does; otherwise the last one counts, as in encoding/json.
	unique bool
}

// decode reads the whole of s as one JSON value.
func (d *decoder) decode() (any, error) {
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i < len(d.s) {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func (d *decoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// syntax reports the byte at d.i as unexpected.
func (d *decoder) syntax(what string) error {
	if d.i >= len(d.s) {
		return errEnd
	}
	return fmt.Errorf("invalid character %q %s at byte %d", d.s[d.i], what, d.i)
}

func (d *decoder) value() (any, error) {
	d.space()
	if d.i >= len(d.s) {
		return nil, errEnd
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.string()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.syntax("looking for a value")
}

func (d *decoder) literal(lit string) error {
	for j := range len(lit) {
		if d.i >= len(d.s) {
			return errEnd
		}
		if d.s[d.i] != lit[j] {
			return d.syntax("in literal " + lit)
		}
		d.i++
	}
	return nil
}

// enter counts one more level of nesting.
func (d *decoder) enter() error {
	if d.depth++; d.depth > maxDepth {
		return fmt.Errorf("nested deeper than %d", maxDepth)
	}
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	m := make(map[string]any)
	err := d.members(func(err error) error { return err }, func(name string) error {
		v, err := d.value()
		if err != nil {
			return err
		}
		if _, dup := m[name]; dup && d.unique {
			return fmt.Errorf("a member name appears twice in one object, before byte %d", d.i)
		}
		m[name] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// members reads the object at d.i (its '{' next, its level entered), up
// to its '}' (the level left): each is called with every member's name,
// d.i past the ':' after it, and reads the member's value. An error of
// each is returned as it is; one of the object's own syntax, through
// wrap.
func (d *decoder) members(wrap func(error) error, each func(name string) error) error {
	d.i++ // '{'
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return nil
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return wrap(d.syntax("looking for a member name"))
		}
		name, err := d.string()
		if err != nil {
			return wrap(err)
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return wrap(d.syntax("after a member name"))
		}
		d.i++
		if err := each(name); err != nil {
			return err
		}
		d.space()
		if d.i >= len(d.s) {
			return wrap(errEnd)
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return nil
		default:
			return wrap(d.syntax("after an object member"))
		}
	}
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++ // '['
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, errEnd
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return a, nil
		default:
			return nil, d.syntax("after an array element")
		}
	}
}

// number reads a number as spelled, checked against RFC 8259's grammar.
func (d *decoder) number() (any, error) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && '1' <= d.s[d.i] && d.s[d.i] <= '9':
		d.digits()
	default:
		return nil, d.syntax("in a number")
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return nil, d.syntax("after a decimal point")
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, d.syntax("in an exponent")
		}
	}
	return json.Number(d.s[start:d.i]), nil
}

func (d *decoder) digits() int {
	start := d.i
	for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// string reads a string from its opening quote.
func (d *decoder) string() (string, error) {
	d.i++ // '"'
	start := d.i
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], nil
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			return "", d.syntax("in a string")
		}
		d.i++
	}
	return "", errEnd
}

// unescape reads the rest of a string that has escapes, from its first.
func (d *decoder) unescape(start int) (string, error) {
	b := make([]byte, d.i-start, d.i-start+16)
	copy(b, d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), nil
		case c < 0x20:
			return "", d.syntax("in a string")
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		d.i++ // '\\'
		if d.i >= len(d.s) {
			return "", errEnd
		}
		switch e := d.s[d.i]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return "", err
			}
			if 0xD800 <= r && r < 0xDC00 && d.i+6 < len(d.s) && d.s[d.i+1] == '\\' && d.s[d.i+2] == 'u' {
				save := d.i
				d.i += 2
				if lo, err := d.hex4(); err == nil && 0xDC00 <= lo && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					d.i = save // not a pair: the next escape is read on its own
				}
			}
			// utf8.AppendRune would write U+FFFD for a lone surrogate;
			// its WTF-8 form keeps it apart from every other string.
			switch {
			case r < 0x80:
				b = append(b, byte(r))
			case r < 0x800:
				b = append(b, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
			case r < 0x10000:
				b = append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			default:
				b = append(b, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			}
		default:
			return "", d.syntax("in a string escape")
		}
		d.i++
	}
	return "", errEnd
}

// hex4 reads the four hex digits after "\u", leaving d.i on the last.
func (d *decoder) hex4() (rune, error) {
	var r rune
	for range 4 {
		d.i++
		if d.i >= len(d.s) {
			return 0, errEnd
		}
		c := d.s[d.i]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, d.syntax("in a \\u escape")
		}
	}
	return r, nil
}
