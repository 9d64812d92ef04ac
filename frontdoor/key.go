package frontdoor

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// HeaderKey is the request header that carries the key.
const HeaderKey = "Idempotency-Key"

// errNoKeyHeader is a POST without the header, when one is required.
var errNoKeyHeader = errors.New("the Idempotency-Key header is required")

// requestKey reads the Idempotency-Key header: a Structured Field String
// (RFC 8941, "…" with \" and \\ escapes), as the draft defines it, or, for
// clients that send it bare, a run of visible ASCII characters without
// quotes, backslashes, commas or semicolons. Parameters and lists are
// refused. ok is false when the header is absent.
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
	}
	return key, true, nil
}

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

// pathEscape escapes key as one path segment.
func pathEscape(key string) string { return url.PathEscape(key) }
