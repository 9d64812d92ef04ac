package frontdoor

import (
	"net/http"
	"net/url"
	"strings"
)

// ServeHTTP routes a request: POST Config.Path to submit, GET and HEAD
// Config.Path/{key} to status. Another path is answered 404 and another
// method 405 (with Allow), as problems like every other error. Every
// answer is marked Cache-Control: no-store (a result, a state or a 202
// is one caller's, and changes) and X-Content-Type-Options: nosniff (a
// result is served as the worker stored it).
func (fd *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	key, isStatus, ok := fd.route(r)
	switch {
	case !ok:
		problem(w, http.StatusNotFound, "Not found", "requests are posted to "+fd.c.Path+" and read at "+fd.c.Path+"/{key}")
	case !isStatus && r.Method == http.MethodPost:
		fd.submit(w, r)
	case !isStatus:
		h.Set("Allow", http.MethodPost)
		problem(w, http.StatusMethodNotAllowed, "Method not allowed", "requests are posted here; each one's status is read at "+fd.c.Path+"/{key}")
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		h.Set("Allow", "GET, HEAD")
		problem(w, http.StatusMethodNotAllowed, "Method not allowed", "a request's status is read with GET")
	case dotSegment(key):
		problem(w, http.StatusNotFound, "No such request", errDotKey.Error())
	default:
		r.SetPathValue("key", key)
		fd.status(w, r)
	}
}

// route matches r's path against Config.Path, segment by segment, each
// unescaped on its own: ok is false when it does not match; isStatus is
// true for Config.Path/{key}, with the key unescaped. Nothing is cleaned
// or redirected: the status URL of every key the front door accepts
// (statusURL: pathEscape of the key) routes back to that key, a "/" in a
// key included (escaped as %2F), and so does any other escaping of it.
func (fd *frontDoor) route(r *http.Request) (key string, isStatus, ok bool) {
	segments := strings.Split(r.URL.EscapedPath(), "/")
	n := len(fd.base)
	if len(segments) != n && len(segments) != n+1 {
		return "", false, false
	}
	for i, want := range fd.base {
		if s, err := url.PathUnescape(segments[i]); err != nil || s != want {
			return "", false, false
		}
	}
	if len(segments) == n {
		return "", false, true
	}
	key, err := url.PathUnescape(segments[n])
	if err != nil {
		return "", false, false
	}
	return key, true, true
}
