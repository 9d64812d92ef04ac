package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// escape is s made safe to print on a terminal: what anyone who can
// send a message wrote (a key, and whatever else a record or an error
// holds) never reaches the operator's terminal as it is. Every character
// that is not printable is written as a Go escape: the C0 controls (ESC
// of a terminal's escape sequences, CR, NUL; \a \b \f \n \r \t \v by
// name), DEL and the C1 controls (\x7f, \u009b), format characters such
// as the bidi overrides and zero-width spaces (\u202e, \u200b), line and
// paragraph separators and spaces other than ASCII's (\u2028, \u00a0);
// each byte that is not UTF-8 is \xff. A backslash is written \\, so the
// escaped text names one string only; bash reads it back within $'…'
// (idemq inspect --raw $'summarise#\x1b[2J'). Printable text, letters of
// every script included, is left as it is.
func escape(s string) string {
	if printable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		case r < utf8.RuneSelf && named[r] != "":
			b.WriteString(named[r])
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// named are the controls with an escape of their own, as Go and bash's
// $'…' write them.
var named = [utf8.RuneSelf]string{'\a': `\a`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`}

// printable reports whether escape leaves s as it is.
func printable(s string) bool {
	for _, r := range s { // a byte that is not UTF-8 ranges as utf8.RuneError, which is printable: checked below
		if r == '\\' || (r != ' ' && !unicode.IsPrint(r)) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// safeJSON is a line of JSON (from json.Marshal) made as safe to print
// as escape makes text. encoding/json already writes the C0 controls, U+2028
// and U+2029 as \u escapes and each byte that is not UTF-8 as U+FFFD; this
// writes DEL, the C1 controls and every other character escape would
// escape as \u escapes too, which JSON reads as the same string.
func safeJSON(line []byte) []byte {
	if printable(string(line)) || !utf8.Valid(line) {
		return line // nothing to escape (a backslash is JSON's own), or not json.Marshal's
	}
	out := make([]byte, 0, len(line)+16)
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		if r == '\\' || r == ' ' || unicode.IsPrint(r) {
			out = append(out, line[i:i+size]...)
		} else if r <= 0xFFFF {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		}
		i += size
	}
	return out
}
