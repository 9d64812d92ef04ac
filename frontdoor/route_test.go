package frontdoor_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/frontdoor/frontdoortest"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// routed is a front door on memstore, its queue, and a worker on the
// same store that answers each request with its prompt.
type routed struct {
	front http.Handler
	queue *frontdoortest.Queue
	work  handler.Handler
}

func newRouted(t *testing.T) *routed {
	t.Helper()
	store := must(memstore.New())
	quiet := slog.New(slog.DiscardHandler)
	q := frontdoortest.NewQueue(request.Identity{Namespace: "w"})
	work := func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		var req struct{ Prompt string }
		if err := json.Unmarshal([]byte(msg.Body), &req); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"summary": "of " + req.Prompt})
	}
	return &routed{
		front: must(frontdoor.New(store, q, frontdoor.WithRequest(request.Identity{Namespace: "w"}), frontdoor.WithLogger(quiet))),
		queue: q,
		work:  must(handler.New(store, work, handler.WithRequest(request.Identity{Namespace: "w"}), handler.WithLogger(quiet))),
	}
}

// serve answers one request; key, if not "", is sent as the header's
// sf-string.
func (rt *routed) serve(method, target, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if key != "" {
		r.Header.Set(frontdoor.HeaderKey, key)
	}
	w := httptest.NewRecorder()
	rt.front.ServeHTTP(w, r)
	return w
}

// withID is msg with its message id set.
func withID(msg events.SQSMessage, id string) events.SQSMessage {
	msg.MessageId = id
	return msg
}

// runQueued runs every message enqueued so far on the worker.
func (rt *routed) runQueued(t *testing.T) {
	t.Helper()
	for i, m := range rt.queue.Messages() {
		resp, err := rt.work(context.Background(), events.SQSEvent{Records: []events.SQSMessage{withID(m.Msg, string(rune('a'+i)))}})
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("worker: %v %v", err, resp)
		}
	}
}

// wantProblem checks that w is a problem with the status want.
func wantProblem(t *testing.T, what string, w *httptest.ResponseRecorder, want int) {
	t.Helper()
	var p struct {
		Status int    `json:"status"`
		Title  string `json:"title"`
	}
	if w.Code != want || w.Header().Get("Content-Type") != "application/problem+json" || json.Unmarshal(w.Body.Bytes(), &p) != nil || p.Status != want || p.Title == "" {
		t.Errorf("%s: %d %q %s, want a %d problem", what, w.Code, w.Header().Get("Content-Type"), w.Body, want)
	}
}

// The router's own answers, another path or another method, are
// problems like every other error; a 405 says which methods are allowed.
func TestRoutingErrorsAreProblems(t *testing.T) {
	t.Parallel()
	rt := newRouted(t)
	for _, tc := range []struct {
		method, target string
		want           int
		allow          string
	}{
		{http.MethodGet, "/", http.StatusNotFound, ""},
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
		{http.MethodPost, "/requests/k/more", http.StatusNotFound, ""},
		{http.MethodGet, "/requestsx/k", http.StatusNotFound, ""},
		{http.MethodGet, "/requests/./k", http.StatusNotFound, ""},
		{http.MethodGet, "/requests//k", http.StatusNotFound, ""},
		{http.MethodGet, "/requests", http.StatusMethodNotAllowed, "POST"},
		{http.MethodPut, "/requests", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/requests/k", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPost, "/requests/k", http.StatusMethodNotAllowed, "GET, HEAD"},
	} {
		what := tc.method + " " + tc.target
		w := rt.serve(tc.method, tc.target, "", "")
		wantProblem(t, what, w, tc.want)
		if got := w.Header().Get("Allow"); got != tc.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, tc.allow)
		}
		if w.Header().Get("Location") != "" {
			t.Errorf("%s: redirected to %q", what, w.Header().Get("Location"))
		}
	}
}

// Every answer, results and states included, is one caller's and
// changes: none may be cached or sniffed.
func TestEveryAnswerIsNotCachedNorSniffed(t *testing.T) {
	t.Parallel()
	rt := newRouted(t)
	answers := map[string]*httptest.ResponseRecorder{
		"202 accepted":    rt.serve(http.MethodPost, "/requests", `"k-1"`, `{"prompt":"<script>"}`),
		"202 queued":      rt.serve(http.MethodGet, "/requests/k-1", "", ""),
		"400 bad key":     rt.serve(http.MethodPost, "/requests", `"k`, `{}`),
		"415 not JSON":    rt.serve(http.MethodPost, "/requests", "", ``),
		"404 unknown key": rt.serve(http.MethodGet, "/requests/k-2", "", ""),
		"404 no route":    rt.serve(http.MethodGet, "/elsewhere", "", ""),
		"405 method":      rt.serve(http.MethodPatch, "/requests/k-1", "", ""),
	}
	rt.runQueued(t)
	answers["200 result"] = rt.serve(http.MethodGet, "/requests/k-1", "", "")
	if w := answers["200 result"]; w.Code != http.StatusOK {
		t.Fatalf("the result: %d %s", w.Code, w.Body)
	}
	for what, w := range answers {
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", what, got)
		}
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", what, got)
		}
	}
}

// The keys "." and ".." are refused when posted: their status URL would
// end in a dot segment, which clients remove. Read raw, they are unknown
// (not a redirect elsewhere).
func TestDotKeysAreRefused(t *testing.T) {
	t.Parallel()
	rt := newRouted(t)
	for _, key := range []string{`"."`, `".."`, `.`, `..`} {
		w := rt.serve(http.MethodPost, "/requests", key, `{"prompt":"p"}`)
		wantProblem(t, "POST key "+key, w, http.StatusBadRequest)
		if !strings.Contains(w.Body.String(), "dot segment") {
			t.Errorf("POST key %s: %s does not say why", key, w.Body)
		}
	}
	if msgs := rt.queue.Messages(); len(msgs) != 0 {
		t.Errorf("enqueued %v, want nothing", msgs)
	}
	for _, target := range []string{"/requests/.", "/requests/..", "/requests/%2E", "/requests/%2e%2E"} {
		w := rt.serve(http.MethodGet, target, "", "")
		wantProblem(t, "GET "+target, w, http.StatusNotFound)
		if w.Header().Get("Location") != "" {
			t.Errorf("GET %s: redirected to %q", target, w.Header().Get("Location"))
		}
	}
}

// Every other key's status URL is its own: a "/" in it, dots, percent
// signs, anything the header can carry; GET and HEAD of the Location
// find the result, resolved as a client resolves it.
func TestStatusURLsRoundTrip(t *testing.T) {
	t.Parallel()
	rt := newRouted(t)
	keys := []string{`a/../b`, `a//b`, `/`, `./`, `...`, `.a`, `%2e%2e`, `%`, `?x#y`, `a b`, `\`, `~!$&'()*+,;=:@`}
	locations := map[string]string{}
	for _, key := range keys {
		w := rt.serve(http.MethodPost, "/requests", strconvQuote(key), `{"prompt":"`+url.QueryEscape(key)+`"}`)
		if w.Code != http.StatusAccepted {
			t.Fatalf("POST %q: %d %s", key, w.Code, w.Body)
		}
		loc := w.Header().Get("Location")
		if seg := strings.TrimPrefix(loc, "/requests/"); strings.Trim(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%") != "" {
			t.Errorf("key %q: Location %q holds more than unreserved characters and escapes", key, loc)
		}
		base := must(url.Parse("https://front.example/requests"))
		if got := base.ResolveReference(must(url.Parse(loc))).EscapedPath(); got != loc {
			t.Errorf("key %q: Location %q resolves to %q", key, loc, got)
		}
		locations[key] = loc
	}
	rt.runQueued(t)
	for _, key := range keys {
		// The status is found however the key is escaped: as the
		// Location has it, or as url.PathEscape leaves it.
		if w := rt.serve(http.MethodGet, "/requests/"+url.PathEscape(key), "", ""); w.Code != http.StatusOK {
			t.Errorf("GET /requests/%s (key %q): %d %s, want its result", url.PathEscape(key), key, w.Code, w.Body)
		}
		w := rt.serve(http.MethodGet, locations[key], "", "")
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), url.QueryEscape(key)) {
			t.Errorf("GET %s (key %q): %d %s, want its result", locations[key], key, w.Code, w.Body)
		}
		if w := rt.serve(http.MethodHead, locations[key], "", ""); w.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d", locations[key], w.Code)
		}
	}
}

// strconvQuote is key as an sf-string: quotes and backslashes escaped.
func strconvQuote(key string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
}
