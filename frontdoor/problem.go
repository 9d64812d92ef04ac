package frontdoor

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/idemq/idemq/idem"
)

// problem answers an error as an RFC 9457 problem: its status, a title
// naming it, and detail saying what to do.
func problem(w http.ResponseWriter, status int, title, detail string) {
	body, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail,omitempty"`
	}{"about:blank", title, status, detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// retryAfter asks the client to come back in a second.
func retryAfter(w http.ResponseWriter) { w.Header().Set("Retry-After", "1") }

// storeError answers a failure of the store (or of a read of what it
// holds): 500 for a record that cannot be read, else 503, to retry. key is
// the key of the record, for the log.
func (fd *frontDoor) storeError(w http.ResponseWriter, key idem.Key, err error) {
	if err == nil { // not reached: every outcome without an error is answered above
		err = errors.New("no outcome")
	}
	fd.c.Logger.Error("idemq frontdoor: store error", "key", key, "err", err.Error())
	if errors.Is(err, idem.ErrUnreadableResult) {
		problem(w, http.StatusInternalServerError, "Stored answer cannot be read", "the record for this key cannot be read back")
		return
	}
	retryAfter(w)
	problem(w, http.StatusServiceUnavailable, "Store unavailable", "retry with the same Idempotency-Key")
}
