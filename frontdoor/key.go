package frontdoor

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// HeaderKey is the request header that carries the key.
const HeaderKey = "Idempotency-Key"

// errNoKeyHeader is a POST without the header, when one is required.
var errNoKeyHeader = errors.New("the Idempotency-Key header is required")

// errDotKey is a key whose status URL no client can read.
var errDotKey = errors.New(`the Idempotency-Key cannot be "." or "..": its status URL would end in a dot segment, which URL clients remove (RFC 3986, section 5.2.4); send another key`)

// requestKey reads the Idempotency-Key header: a Structured Field String
// (RFC 8941, "…" with \" and \\ escapes), as the draft defines it, or, for
// clients that send it bare, a run of visible ASCII characters without
// quotes, backslashes, commas or semicolons. Parameters and lists are
// refused, and so are "." and ".." (dotSegment). ok is false when the
// header is absent.
func requestKey(h http.Header) (key string, ok bool, err error) {
	values := h.Values(HeaderKey)
	switch len(values) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, fmt.Errorf("%d Idempotency-Key headers: send one", len(values))
	}
	v := strings.Trim(values[0], " \t")
	if strings.HasPrefix(v, `"`) {
		key, err = sfString(v)
	} else {
		key, err = bareKey(v)
	}
	switch {
	case err != nil:
		return "", true, err
	case key == "":
		return "", true, errors.New("the Idempotency-Key is empty")
	case len(key) > MaxKeyBytes:
		return "", true, fmt.Errorf("the Idempotency-Key is %d bytes, over %d", len(key), MaxKeyBytes)
	case dotSegment(key):
		return "", true, errDotKey
	}
	return key, true, nil
}

// dotSegment reports whether key is "." or "..". Every other key the
// header can carry (printable ASCII) makes a status URL that clients
// send as it is: url.PathEscape escapes "/", "?", "#", "%" and the rest a
// client would read as the URL's structure. But a path segment "." or
// ".." is removed by every client that resolves a URL (RFC 3986, section
// 5.2.4: browsers, curl, urllib3, Go's url.ResolveReference), and
// escaping it does not help: "%2E" is the same unreserved character, and
// the WHATWG URL standard removes "%2e%2e" too. So these two keys are
// refused when posted (400) and unknown when read (404).
func dotSegment(key string) bool { return key == "." || key == ".." }

// sfString parses v, which starts with a quote, as one sf-string and
// nothing after it.
func sfString(v string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\':
			if i+1 == len(v) || (v[i+1] != '"' && v[i+1] != '\\') {
				return "", errors.New(`the Idempotency-Key has a backslash before neither " nor \`)
			}
			i++
			b.WriteByte(v[i])
		case c == '"':
			if i+1 != len(v) {
				return "", fmt.Errorf("the Idempotency-Key has %q after its closing quote (parameters and lists are not taken)", v[i+1:])
			}
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", fmt.Errorf("the Idempotency-Key holds byte %#x: a string is printable ASCII", c)
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("the Idempotency-Key has no closing quote")
}

// bareKey checks an unquoted key.
func bareKey(v string) (string, error) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= 0x20 || c > 0x7e || strings.IndexByte(`"\,;`, c) >= 0 {
			return "", fmt.Errorf(`the Idempotency-Key holds %q: send it quoted, as a Structured Field String ("...")`, v[i])
		}
	}
	return v, nil
}

// pathEscape escapes key as one path segment, more than url.PathEscape
// does: every byte but RFC 3986's unreserved characters (letters, digits,
// "-", ".", "_", "~") is percent-encoded, the sub-delimiters included, so
// no server, proxy or framework on the way reads a ";" as the start of a
// path parameter, a "+" as a space (as S3 and form decoders do) or a ","
// or "=" its own way. The router unescapes a segment whatever its
// spelling, so a client may send it less escaped.
func pathEscape(key string) string {
	var b strings.Builder
	b.Grow(len(key) * 3)
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	return b.String()
}
