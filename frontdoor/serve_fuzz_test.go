package frontdoor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/idemq/idemq/internal/fuzzreq"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// The sizes of FuzzServe's front door: small, so that a fuzzed body
// reaches both limits, the front door's and the queue's.
const (
	fuzzMaxBody    = 2048
	fuzzMaxMessage = 1536
)

// FuzzServe checks the front door's whole request handling over memstore,
// for every key rule, scoped and not, on any method, path, Idempotency-Key,
// Content-Type, caller and body, with a queue that records what it is sent
// (a producer over an in-memory SQS) and a worker (the handler, over the
// same memstore) that runs it (its seed corpus is testdata/fuzz/FuzzServe,
// replayed by every go test; make fuzz explores):
//   - nothing panics; every answer carries Cache-Control: no-store and
//     X-Content-Type-Options: nosniff, and is a problem
//     (application/problem+json, its status in its body) unless it is 200,
//     202 or 204; nothing a caller sends is answered 5xx;
//   - the same request twice gives the same answer;
//   - a POST answered 202 enqueued exactly one message (a repeat, none),
//     whose body decodes to the caller's members, the key member aside,
//     with the caller's bytes around it, and which reads the key and the
//     scope the front door answered for; any other answer enqueued
//     nothing;
//   - its Location reads the request back: 202 while it is queued, and,
//     once the worker ran the message, 200 with the worker's result; to
//     another caller it is 404; a POST of it again is the same 202, and
//     enqueues nothing.
func FuzzServe(f *testing.F) {
	quiet := slog.New(slog.DiscardHandler)
	rules := fuzzreq.Namespaced()
	f.Fuzz(func(t *testing.T, cfg uint8, method, target, key, contentType, caller string, body []byte) {
		rule := fuzzreq.Pick(rules, cfg)
		scoped := cfg&0x80 != 0
		id := request.Identity(rule.Identity)
		if method == "" {
			method = []string{http.MethodPost, http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete}[int(cfg>>4)%5]
		}
		// What net/http's server would refuse before the front door sees
		// it: a method that is no token, a target that is no path, a
		// header value with a control character.
		if !token(method) || !headerValue(key) || !headerValue(contentType) || !headerValue(caller) {
			return
		}
		if _, err := url.ParseRequestURI(target); err != nil || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t") {
			return
		}
		store := must(memstore.New())
		q := frontdoortest.NewQueue(id, func(c *producer.Config) { c.MaxMessageBytes = fuzzMaxMessage })
		opts := []frontdoor.Option{frontdoor.WithRequest(id), frontdoor.WithLogger(quiet), func(c *frontdoor.Config) { c.MaxBodyBytes = fuzzMaxBody }}
		if scoped {
			opts = append(opts, frontdoor.WithScope(frontdoortest.HeaderScope))
		}
		fd := must(frontdoor.New(store, q, opts...))
		reader := must(request.NewReader(id))
		result := func(msg events.SQSMessage) []byte {
			rid, _ := reader.ReadKey(msg)
			v, _ := json.Marshal(map[string]string{"done": rid.Value})
			return v
		}
		worker := must(handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
			return result(msg), nil
		}, handler.WithRequest(id), handler.WithLogger(quiet)))

		serve := func(method, target, caller string, body []byte) *httptest.ResponseRecorder {
			t.Helper()
			r := httptest.NewRequest(http.MethodGet, "/", bytes.NewReader(body))
			r.Method, r.RequestURI = method, target
			r.URL = must(url.ParseRequestURI(target))
			if cfg&0x40 != 0 || key != "" {
				r.Header.Set(frontdoor.HeaderKey, key)
			}
			if contentType != "" {
				r.Header.Set("Content-Type", contentType)
			}
			if caller != "" {
				r.Header.Set(frontdoortest.CallerHeader, caller)
			}
			w := httptest.NewRecorder()
			fd.ServeHTTP(w, r)
			checkAnswer(t, method, target, w)
			return w
		}
		what := fmt.Sprintf("rule %s (scoped %v): %s %q, key %q, type %q, caller %q, body %q", rule.Name, scoped, method, target, key, contentType, caller, body)

		first := serve(method, target, caller, body)
		n := len(q.Messages())
		second := serve(method, target, caller, body)
		if !sameAnswer(first, second) {
			t.Fatalf("%s: answered %d %s, then %d %s", what, first.Code, first.Body, second.Code, second.Body)
		}
		msgs := q.Messages()
		if method != http.MethodPost || first.Code != http.StatusAccepted {
			if len(msgs) != 0 {
				t.Fatalf("%s: answered %d, and enqueued %d messages", what, first.Code, len(msgs))
			}
			return
		}
		if n != 1 || len(msgs) != 1 {
			t.Fatalf("%s: 202, and %d messages enqueued, then %d with the repeat", what, n, len(msgs))
		}

		// The message is the caller's request.
		msg := msgs[0].Msg
		var accepted struct {
			Key       string `json:"idempotency_key"`
			Status    string `json:"status"`
			StatusURL string `json:"status_url"`
		}
		if err := json.Unmarshal(first.Body.Bytes(), &accepted); err != nil {
			t.Fatalf("%s: 202 %s: %v", what, first.Body, err)
		}
		mid, err := reader.Read(msg)
		if err != nil {
			t.Fatalf("%s: the message enqueued cannot be read: %v", what, err)
		}
		scope := ""
		if scoped {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set(frontdoortest.CallerHeader, caller)
			scope = must(frontdoortest.HeaderScope(r))
		}
		var path []string
		if rule.Path != nil {
			path = rule.Path
		}
		switch {
		case mid.Scope != scope:
			t.Fatalf("%s: the message is in scope %q, the caller's is %q", what, mid.Scope, scope)
		case id.KeyFields == nil && id.KeyFunc == nil && mid.Value != accepted.Key:
			t.Fatalf("%s: accepted key %q, the message's %q", what, accepted.Key, mid.Value)
		case id.KeyAttribute != "" && msg.Body != string(body):
			t.Fatalf("%s: the body sent %q is not the caller's", what, msg.Body)
		}
		if err := fuzzreq.CheckStamped(body, []byte(msg.Body), path, mid.Value); err != nil {
			t.Fatalf("%s: %v", what, err)
		}

		// Its status URL reads it back: queued, then the worker's result.
		loc := first.Header().Get("Location")
		if loc == "" || loc != accepted.StatusURL {
			t.Fatalf("%s: Location %q, status URL %q", what, loc, accepted.StatusURL)
		}
		queued := serve(http.MethodGet, loc, caller, nil)
		if queued.Code != http.StatusAccepted || !sameAnswer(queued, serve(http.MethodGet, loc, caller, nil)) {
			t.Fatalf("%s: GET %s: %d %s, want 202 twice", what, loc, queued.Code, queued.Body)
		}
		resp, err := worker(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("%s: the worker failed the message: %v %v", what, err, resp.BatchItemFailures)
		}
		done := serve(http.MethodGet, loc, caller, nil)
		if done.Code != http.StatusOK || done.Body.String() != string(result(msg)) {
			t.Fatalf("%s: GET %s after the worker ran: %d %s, want 200 %s", what, loc, done.Code, done.Body, result(msg))
		}
		if scoped {
			if other := serve(http.MethodGet, loc, "someone-else", nil); other.Code != http.StatusNotFound {
				t.Fatalf("%s: GET %s by another caller: %d %s, want 404", what, loc, other.Code, other.Body)
			}
		}
		// Posted again, it is answered as the status read: the result.
		if again := serve(method, target, caller, body); again.Code != done.Code || !bytes.Equal(again.Body.Bytes(), done.Body.Bytes()) ||
			again.Header().Get("Content-Type") != done.Header().Get("Content-Type") || again.Header().Get("Location") != loc || len(q.Messages()) != 1 {
			t.Fatalf("%s: posted again after the worker ran: %d %s, %d messages; want the status read's %d %s", what, again.Code, again.Body, len(q.Messages()), done.Code, done.Body)
		}
	})
}

// checkAnswer checks what every answer of the front door is.
func checkAnswer(t *testing.T, method, target string, w *httptest.ResponseRecorder) {
	t.Helper()
	h := w.Header()
	if h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("%s %q: %d without no-store and nosniff: %v", method, target, w.Code, h)
	}
	if w.Code >= 500 {
		t.Fatalf("%s %q: %d %s: a caller's request answered as the server's fault", method, target, w.Code, w.Body)
	}
	switch w.Code {
	case http.StatusOK, http.StatusAccepted, http.StatusNoContent:
		return
	}
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
	}
	if ct := h.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%s %q: %d with Content-Type %q, not a problem", method, target, w.Code, ct)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != w.Code || p.Title == "" {
		t.Fatalf("%s %q: %d problem %s (%v)", method, target, w.Code, w.Body, err)
	}
	if w.Code == http.StatusMethodNotAllowed && h.Get("Allow") == "" {
		t.Fatalf("%s %q: 405 without Allow", method, target)
	}
}

// sameAnswer reports whether a and b answer alike: status, the headers a
// client reads, body.
func sameAnswer(a, b *httptest.ResponseRecorder) bool {
	for _, name := range []string{"Content-Type", "Location", "Allow", "Retry-After", frontdoor.HeaderKey} {
		if a.Header().Get(name) != b.Header().Get(name) {
			return false
		}
	}
	return a.Code == b.Code && bytes.Equal(a.Body.Bytes(), b.Body.Bytes())
}

// token reports whether s is an HTTP token (RFC 9110), as a method must
// be.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// headerValue reports whether net/http's server takes s as a header
// field's value: no control character but a tab, no leading or trailing
// white space (which it would trim).
func headerValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(s) == s
}
