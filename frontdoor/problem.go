package frontdoor

import (
	"encoding/json"
	"net/http"
	"strconv"
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
