package frontdoor

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
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
