package frontdoor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/idemq/idemq/idem/idemjson"
)

// errTooLarge is a body over Config.MaxBodyBytes.
var errTooLarge = errors.New("the body is too large")

// readBody reads a request's body, at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, fmt.Errorf("%w: over %d bytes", errTooLarge, limit)
	}
	return body, err
}

// jsonContent reports whether a Content-Type, if any, is JSON's
// (application/json, or a +json type).
func jsonContent(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || (len(mt) > 5 && mt[len(mt)-5:] == "+json"))
}

// message is the body the worker receives: body, a JSON object, with
// stored (the key the request is kept under: storedKey) at field. It also
// returns the request's fingerprint: that of body's canonical form
// (idemjson.Fingerprint), so white space and member order do not make
// another request. A body that is not an I-JSON object, or that holds
// field with another value than key (the client's), is an error.
func message(body []byte, field, key, stored string) (msg []byte, fingerprint string, err error) {
	fingerprint, err = idemjson.Fingerprint(body)
	if err != nil {
		return nil, "", err
	}
	obj, err := idemjson.Parse(body)
	if err != nil {
		return nil, "", err
	}
	if v, ok := obj.Field(field); ok {
		if s, isString := v.(string); !isString || s != key {
			return nil, "", fmt.Errorf("the body's %q is not the Idempotency-Key %q: leave it out, or send the same", field, key)
		}
		if stored == key {
			return body, fingerprint, nil
		}
		msg, err = rekey(body, field, stored)
		return msg, fingerprint, err
	}
	member, _ := json.Marshal(field)
	value, _ := json.Marshal(stored)
	open := bytes.IndexByte(body, '{') // the object's own: only white space can come before it
	rest := bytes.TrimLeft(body[open+1:], " \t\r\n")
	msg = make([]byte, 0, len(body)+len(member)+len(value)+2)
	msg = append(msg, '{')
	msg = append(msg, member...)
	msg = append(msg, ':')
	msg = append(msg, value...)
	if rest[0] != '}' {
		msg = append(msg, ',')
	}
	return append(msg, rest...), fingerprint, nil
}
