package idemjson

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The canonical form every JSON key and fingerprint hashes is RFC 8785's
// (members sorted by their names' UTF-16 code units, no white space, the
// shortest escapes) with two changes that keep distinct values apart:
//
//   - A number is written from its exact decimal value, laid out as RFC
//     8785 (ECMAScript) lays numbers out: the fewest digits, plain up to
//     21 integer digits, an exponent beyond. RFC 8785 first rounds the
//     number to a float64, which merges neighbours: 9007199254740993 with
//     9007199254740992, 1.0000000000000000001 with 1, 1e-400 with 0.
//     Wherever that rounding loses nothing — every number a float64 holds
//     in its shortest form, so every ordinary number — the two forms are
//     the same text, and keys made before stay as they were. A number is
//     refused only when its exponent has more than 18 digits.
//   - A string (a member name too) must be Unicode text: a lone surrogate
//     escape ("\ud800") or bytes that are not UTF-8 are refused, where
//     encoding/json reads each as U+FFFD and merges them all, and RFC 8785
//     rejects them as outside I-JSON (RFC 7493).
//
// The rules are applied to the values that are hashed, so such a string
// elsewhere in a body does not stop a key made from other fields.

var (
	errNotText   = errors.New("a string is not Unicode text (a lone surrogate escape, or bytes that are not UTF-8)")
	errExponent  = errors.New("a number's exponent has more than 18 digits")
	errNotNumber = errors.New("a number is not spelled as JSON allows")
)

// appendCanonical appends the canonical form of v, a value as the decoder
// makes it.
func appendCanonical(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if v {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendString(dst, v)
	case json.Number:
		return appendNumber(dst, string(v))
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendCanonical(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			if !utf8.ValidString(name) {
				return nil, errNotText
			}
			names = append(names, name)
		}
		slices.SortFunc(names, compareUTF16)
		dst = append(dst, '{')
		for i, name := range names {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = appendString(dst, name)
			dst = append(dst, ':')
			var err error
			if dst, err = appendCanonical(dst, v[name]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("%T is not a JSON value", v)
}

// appendString appends s quoted as RFC 8785 does: only '"', '\\' and the
// control characters escaped, as \b \t \n \f \r or \u00xx.
func appendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, errNotText
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// appendNumber appends the number lit, spelled as RFC 8259 allows, as its
// exact decimal value in ECMAScript's layout (Number::toString): with k
// significant digits s and the value s × 10^(n−k), plain digits when
// k ≤ n ≤ 21, a decimal point within them when 0 < n ≤ 21, "0.000…"
// when −6 < n ≤ 0, else the digits with an exponent ("1e+400").
func appendNumber(dst []byte, lit string) ([]byte, error) {
	bad := errNotNumber
	i := 0
	neg := i < len(lit) && lit[i] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < len(lit) && '0' <= lit[i] && lit[i] <= '9' {
		i++
	}
	intPart := lit[intStart:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return nil, bad
	}
	var frac string
	if i < len(lit) && lit[i] == '.' {
		i++
		start := i
		for i < len(lit) && '0' <= lit[i] && lit[i] <= '9' {
			i++
		}
		if frac = lit[start:i]; frac == "" {
			return nil, bad
		}
	}
	var expNeg bool
	var expDigits string
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			expNeg = lit[i] == '-'
			i++
		}
		start := i
		for i < len(lit) && '0' <= lit[i] && lit[i] <= '9' {
			i++
		}
		if expDigits = lit[start:i]; expDigits == "" {
			return nil, bad
		}
	}
	if i != len(lit) {
		return nil, bad
	}

	// The significant digits, without leading or trailing zeros; the
	// value is digits × 10^e.
	var buf [40]byte
	digits := append(append(buf[:0], intPart...), frac...)
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	e := -int64(len(frac))
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		e++
	}
	if len(digits) == 0 {
		return append(dst, '0'), nil // 0, -0, 0.0e7: zero
	}
	for len(expDigits) > 1 && expDigits[0] == '0' {
		expDigits = expDigits[1:]
	}
	if len(expDigits) > 18 {
		return nil, errExponent
	}
	var exp int64
	for _, c := range []byte(expDigits) {
		exp = exp*10 + int64(c-'0')
	}
	if expNeg {
		exp = -exp
	}
	k := int64(len(digits))
	n := e + exp + k

	if neg {
		dst = append(dst, '-')
	}
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		x := n - 1
		if x < 0 {
			dst, x = append(dst, 'e', '-'), -x
		} else {
			dst = append(dst, 'e', '+')
		}
		dst = strconv.AppendInt(dst, x, 10)
	}
	return dst, nil
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts member names. It differs from byte order only where a character
// above U+FFFF (a surrogate pair) meets one from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	if (ra > 0xFFFF) != (rb > 0xFFFF) {
		// Compare the first code unit: a high surrogate for the one
		// above U+FFFF.
		if ra > 0xFFFF {
			ra = 0xD800 + (ra-0x10000)>>10
		} else {
			rb = 0xD800 + (rb-0x10000)>>10
		}
	}
	return cmp.Compare(ra, rb)
}
