package frontdoor

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrNoScope is a caller whose scope Config.Scope could not tell: its
// request is refused with 403 and nothing is enqueued or read. A scope
// func may return it (wrapped) for a request without an identity.
var ErrNoScope = errors.New("frontdoor: the caller has no scope")

// WithScope sets Config.Scope, f: each caller's keys are its own. f names
// the caller of a request: the scope its keys live in, such as an account
// or a principal. Two callers with one scope share
// their keys (a key one posted, the other's retry of it is answered the
// same, and either reads its result); callers with two scopes never do.
// It must name a caller the same on every retry of a request and on every
// status read of it. An error or "" refuses the request (403); a scope
// the key rule refuses (idem.CheckValue: not UTF-8 text, a control
// character, over idem.MaxValueBytes bytes) is the caller's error (400 at
// a POST, 404 at a GET). Defaults to none: one key space shared by every
// caller.
func WithScope(f func(r *http.Request) (string, error)) Option {
	return func(c *Config) { c.Scope = f }
}

// callerScope runs Config.Scope for r: "" and true without one; the
// caller's scope and true; false when the request was refused (403). A
// scope the key rule refuses is returned: the caller of submit and status
// refuses it as the caller's error.
func (fd *frontDoor) callerScope(w http.ResponseWriter, r *http.Request) (string, bool) {
	if fd.c.Scope == nil {
		return "", true
	}
	scope, err := fd.c.Scope(r)
	switch {
	case err != nil:
	case scope == "":
		err = fmt.Errorf("%w: the scope func named none", ErrNoScope)
	default:
		return scope, true
	}
	fd.c.Logger.Warn("idemq frontdoor: caller refused: no scope", "method", r.Method, "path", r.URL.Path, "err", err.Error())
	problem(w, http.StatusForbidden, "Caller is not identified", "this front door keeps each caller's keys apart, and could not tell who sent this request")
	return "", false
}
