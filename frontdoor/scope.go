package frontdoor

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

// ErrNoScope is a caller whose scope Config.Scope could not tell: its
// request is refused with 403 and nothing is enqueued or read. A scope
// func may return it (wrapped) for a request without an identity.
var ErrNoScope = errors.New("frontdoor: the caller has no scope")

// ScopeFunc names the caller of a request: the scope its keys live in,
// such as an account or a principal. Two callers with one scope share
// their keys (a key one posted, the other's retry of it is answered the
// same, and either reads its result); callers with two scopes never do.
// It must name a caller the same on every retry of a request and on every
// status read of it. An error or "" refuses the request (403).
type ScopeFunc func(r *http.Request) (string, error)

// storedKey is the key a request is kept and enqueued under: key itself
// without a scope, else scope and key as one natural key value
// (idem.NaturalValue: each part escaped, then joined), so ("a:b", "c")
// and ("a", "b:c") are two keys. It is the front door's record's key,
// the key put in the queued body, which the worker's handler claims, and
// so the key of the worker's record a status read finds.
func storedKey(scope, key string) string {
	if scope == "" {
		return key
	}
	v, _ := idem.NaturalValue(scope, key) // cannot fail: neither is empty
	return v
}

// callerScope runs Config.Scope for r: "" and true without one; the
// caller's scope and true; false when the request was refused (403).
func (fd *frontDoor) callerScope(w http.ResponseWriter, r *http.Request) (string, bool) {
	if fd.c.Scope == nil {
		return "", true
	}
	scope, err := fd.c.Scope(r)
	switch {
	case err != nil:
	case scope == "":
		err = fmt.Errorf("%w: the scope func named none", ErrNoScope)
	case !utf8.ValidString(scope):
		// Read back from the queued body it would be U+FFFD, and share
		// its keys with other callers.
		err = fmt.Errorf("%w: the scope func named one that is not UTF-8 text", ErrNoScope)
	default:
		return scope, true
	}
	fd.c.Logger.Warn("idemq frontdoor: caller refused: no scope", "method", r.Method, "path", r.URL.Path, "err", err.Error())
	problem(w, http.StatusForbidden, "Caller is not identified", "this front door keeps each caller's keys apart, and could not tell who sent this request")
	return "", false
}

// rekey returns body, a JSON object holding field (the client's key),
// with field holding stored instead: the members re-encoded, each value
// kept as sent.
func rekey(body []byte, field, stored string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, err
	}
	members[field], _ = json.Marshal(stored)
	return json.Marshal(members)
}
