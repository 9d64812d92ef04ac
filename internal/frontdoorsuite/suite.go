// Package frontdoorsuite is the front door's behaviour, run against any
// store: the frontdoor package runs it on memstore, and
// idem/dynamostore/internal/frontdoordynamo on DynamoDB Local. Each test
// posts through the front door (package frontdoor), delivers what it
// enqueued at least once through a fake queue, runs the worker's handler
// (handler.New over the same store) on it, and reads the result back.
package frontdoorsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// quiet takes the logs of the front door and the worker: the tests
// check what they answer.
var quiet = slog.New(slog.DiscardHandler)

// Namespace is the worker's namespace in every test.
const Namespace = "summarise"

// Run runs the suite against stores newStore makes; each test gets a
// store of its own.
func Run(t *testing.T, newStore func(t *testing.T) frontdoor.Store) {
	t.Run("concurrent posts enqueue once", func(t *testing.T) { t.Parallel(); concurrentPosts(t, newStore(t)) })
	t.Run("payload mismatch", func(t *testing.T) { t.Parallel(); payloadMismatch(t, newStore(t)) })
	t.Run("status", func(t *testing.T) { t.Parallel(); status(t, newStore(t)) })
	t.Run("bad requests", func(t *testing.T) { t.Parallel(); badRequests(t, newStore(t)) })
	t.Run("in progress", func(t *testing.T) { t.Parallel(); inProgress(t, newStore(t)) })
	t.Run("lost HTTP answer", func(t *testing.T) { t.Parallel(); lostAnswer(t, newStore(t)) })
	t.Run("lost enqueue answer", func(t *testing.T) { t.Parallel(); lostEnqueueAnswer(t, newStore(t)) })
	t.Run("scoped callers", func(t *testing.T) { t.Parallel(); scopedCallers(t, newStore(t)) })
	t.Run("unscoped callers share keys", func(t *testing.T) { t.Parallel(); unscopedCallers(t, newStore(t)) })
}

// Queue is a fake queue that records what is enqueued; Fail makes the
// next enqueues fail, after sending (an answer lost) or before.
type Queue struct {
	mu   sync.Mutex
	msgs []Message
	// fail, while above 0, fails that many enqueues; sendAnyway sends them
	// first.
	fail       int
	sendAnyway bool
}

// Message is one enqueued message.
type Message struct {
	Key  string
	Body string
}

// Enqueue records the message, or fails as Fail said.
func (q *Queue) Enqueue(_ context.Context, key string, body []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail > 0 {
		q.fail--
		if !q.sendAnyway {
			return errors.New("queue: refused")
		}
		q.msgs = append(q.msgs, Message{key, string(body)})
		return errors.New("queue: sent, answer lost")
	}
	q.msgs = append(q.msgs, Message{key, string(body)})
	return nil
}

// Fail makes the next n enqueues fail: after sending when sent is set,
// else before.
func (q *Queue) Fail(n int, sent bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fail, q.sendAnyway = n, sent
}

// Messages returns what was enqueued, in order.
func (q *Queue) Messages() []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Message(nil), q.msgs...)
}

// Count returns how many messages were enqueued for key.
func (q *Queue) Count(key string) int {
	n := 0
	for _, m := range q.Messages() {
		if m.Key == key {
			n++
		}
	}
	return n
}

// bundle is one test's front door, queue and worker.
type bundle struct {
	t     *testing.T
	store frontdoor.Store
	queue *Queue
	front http.Handler
	work  handler.Handler
	calls sync.Map // key → *atomic.Int64: the provider's calls
	ids   atomic.Int64
}

func newBundle(t *testing.T, store frontdoor.Store, opts ...frontdoor.Option) *bundle {
	t.Helper()
	b := &bundle{t: t, store: store, queue: &Queue{}}
	var err error
	if b.front, err = frontdoor.New(store, b.queue, append([]frontdoor.Option{frontdoor.WithNamespace(Namespace), frontdoor.WithLogger(quiet)}, opts...)...); err != nil {
		t.Fatal(err)
	}
	// The provider: counts its calls per key, answers with the prompt.
	provider := func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		var req struct {
			Key    string `json:"idempotency_key"`
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(msg.Body), &req); err != nil {
			return nil, err
		}
		n, _ := b.calls.LoadOrStore(req.Key, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return json.Marshal(map[string]string{"summary": "of " + req.Prompt})
	}
	if b.work, err = handler.New(store, provider, handler.WithNamespace(Namespace), handler.WithLogger(quiet)); err != nil {
		t.Fatal(err)
	}
	return b
}

// calls is how many times the provider ran for key.
func (b *bundle) providerCalls(key string) int64 {
	if n, ok := b.calls.Load(key); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// post posts body with key ("" for none) and returns the answer.
func (b *bundle) post(key, body string) *http.Response { return b.postAs("", key, body) }

// get reads the status of key.
func (b *bundle) get(key string) *http.Response { return b.getAs("", key) }

// CallerHeader names the caller of a request in the scoped tests
// (HeaderScope); the tests send it where a deployment would have an
// authenticated identity.
const CallerHeader = "X-Test-Caller"

// HeaderScope is the scope func of the scoped tests: the caller named in
// CallerHeader; "-" names none (""), and no header is ErrNoScope.
func HeaderScope(r *http.Request) (string, error) {
	switch caller := r.Header.Get(CallerHeader); caller {
	case "":
		return "", fmt.Errorf("%w: no %s", frontdoor.ErrNoScope, CallerHeader)
	case "-":
		return "", nil
	default:
		return caller, nil
	}
}

// postAs posts body with key ("" for none) as caller ("" for no
// CallerHeader) and returns the answer.
func (b *bundle) postAs(caller, key, body string) *http.Response {
	r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set(frontdoor.HeaderKey, `"`+key+`"`)
	}
	if caller != "" {
		r.Header.Set(CallerHeader, caller)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	return w.Result()
}

// getAs reads the status of key (escaped as a path segment) as caller
// ("" for no CallerHeader).
func (b *bundle) getAs(caller, key string) *http.Response {
	r := httptest.NewRequest(http.MethodGet, frontdoor.DefaultPath+"/"+url.PathEscape(key), nil)
	if caller != "" {
		r.Header.Set(CallerHeader, caller)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	return w.Result()
}

// deliver hands every message enqueued so far to the worker at least
// once: each in a batch of its own, then every other one again, in one
// batch with a copy of itself (a redelivery meeting its duplicate). Every
// record must be acknowledged.
func (b *bundle) deliver() {
	b.t.Helper()
	msgs := b.queue.Messages()
	for i, m := range msgs {
		b.invoke(m)
		if i%2 == 0 {
			b.invoke(m, m)
		}
	}
}

// invoke runs one batch of msgs on the worker; every record must be
// acknowledged.
func (b *bundle) invoke(msgs ...Message) {
	b.t.Helper()
	var ev events.SQSEvent
	for _, m := range msgs {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprintf("m-%d", b.ids.Add(1)), Body: m.Body,
			EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:requests"})
	}
	resp, err := b.work(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) > 0 {
		b.t.Fatalf("worker: %v, failures %v", err, resp.BatchItemFailures)
	}
}

// read returns an answer's status and body.
func read(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// wantStatus checks an answer's status code and returns its body.
func wantStatus(t *testing.T, what string, resp *http.Response, want int) string {
	t.Helper()
	got, body := read(t, resp)
	if got != want {
		t.Fatalf("%s: %d %s, want %d", what, got, body, want)
	}
	return body
}

// concurrentPosts: 100 clients post the same request at once, for each of
// a few keys; each key is enqueued once, every answer is the same 202 or a
// 409 to retry, the worker (given each message at least once, some twice)
// calls the provider once per key, and the status then is its result.
func concurrentPosts(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	const clients, keys = 100, 3
	type answer struct {
		status int
		body   string
	}
	answers := make([][]answer, keys)
	var wg sync.WaitGroup
	for k := range keys {
		answers[k] = make([]answer, clients)
		for c := range clients {
			wg.Go(func() {
				status, body := read(t, b.post(fmt.Sprintf("conc-%d", k), fmt.Sprintf(`{"prompt":"text %d"}`, k)))
				answers[k][c] = answer{status, body}
			})
		}
	}
	wg.Wait()
	for k := range keys {
		key := fmt.Sprintf("conc-%d", k)
		accepted, first := 0, ""
		for _, a := range answers[k] {
			switch a.status {
			case http.StatusAccepted:
				accepted++
				if first == "" {
					first = a.body
				} else if a.body != first {
					t.Errorf("%s: 202 answers differ: %s and %s", key, first, a.body)
				}
			case http.StatusConflict:
			default:
				t.Errorf("%s: answered %d %s, want 202 or 409", key, a.status, a.body)
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no client was answered 202", key)
		}
		t.Logf("%s: %d clients answered 202, %d answered 409", key, accepted, clients-accepted)
		if n := b.queue.Count(key); n != 1 {
			t.Errorf("%s: enqueued %d times, want 1", key, n)
		}
		// A client answered 409 retries, and is answered the same 202.
		if body := wantStatus(t, key+" retried", b.post(key, fmt.Sprintf(`{"prompt":"text %d"}`, k)), http.StatusAccepted); first != "" && body != first {
			t.Errorf("%s: retry answered %s, want %s", key, body, first)
		}
	}
	b.deliver()
	for k := range keys {
		key := fmt.Sprintf("conc-%d", k)
		if n := b.providerCalls(key); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
		if body := wantStatus(t, key+" status", b.get(key), http.StatusOK); body != fmt.Sprintf(`{"summary":"of text %d"}`, k) {
			t.Errorf("%s: status answered %s", key, body)
		}
	}
}

// payloadMismatch: a key reused with another body is 422 and enqueues
// nothing; the same body spelled otherwise (white space, member order) is
// the same request.
func payloadMismatch(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	first := wantStatus(t, "first", b.post("mm-1", `{"prompt":"a","model":"m"}`), http.StatusAccepted)
	wantStatus(t, "another body", b.post("mm-1", `{"prompt":"b","model":"m"}`), http.StatusUnprocessableEntity)
	if again := wantStatus(t, "respelled", b.post("mm-1", ` { "model": "m",  "prompt": "a" } `), http.StatusAccepted); again != first {
		t.Errorf("respelled body answered %s, want %s", again, first)
	}
	if n := b.queue.Count("mm-1"); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
	// After the worker ran, too.
	b.deliver()
	wantStatus(t, "another body after the work", b.post("mm-1", `{"prompt":"c"}`), http.StatusUnprocessableEntity)
}

// status: 404 for an unknown key; 202 queued once accepted; 202 in
// progress while the worker runs it; 200 with the result after.
func status(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	wantStatus(t, "unknown", b.get("st-1"), http.StatusNotFound)
	accepted := b.post("st-1", `{"prompt":"p"}`)
	if loc := accepted.Header.Get("Location"); loc != frontdoor.DefaultPath+"/st-1" {
		t.Errorf("Location %q, want %s/st-1", loc, frontdoor.DefaultPath)
	}
	wantStatus(t, "posted", accepted, http.StatusAccepted)
	wantState(t, "queued", b.get("st-1"), frontdoor.StateQueued)

	// A worker whose provider waits: the key is in progress meanwhile.
	started, release := make(chan struct{}), make(chan struct{})
	slow, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) {
		close(started)
		<-release
		return []byte("slow summary"), nil
	}, handler.WithNamespace(Namespace), handler.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := slow(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "slow", Body: b.queue.Messages()[0].Body}}})
		if err == nil && len(resp.BatchItemFailures) > 0 {
			err = fmt.Errorf("failures %v", resp.BatchItemFailures)
		}
		done <- err
	}()
	<-started
	wantState(t, "running", b.get("st-1"), frontdoor.StateInProgress)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	resp := b.get("st-1")
	if got := resp.Header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("Content-Type %q of a result that is not JSON", got)
	}
	if body := wantStatus(t, "done", resp, http.StatusOK); body != "slow summary" {
		t.Errorf("result %q, want %q", body, "slow summary")
	}
	// A key with a slash: escaped in the URL, found by it.
	loc := b.post("st/2", `{"prompt":"q"}`).Header.Get("Location")
	if loc != frontdoor.DefaultPath+"/st%2F2" {
		t.Errorf("Location %q, want the key escaped", loc)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, httptest.NewRequest(http.MethodGet, loc, nil))
	wantState(t, "escaped key", w.Result(), frontdoor.StateQueued)
}

func wantState(t *testing.T, what string, resp *http.Response, state string) {
	t.Helper()
	body := wantStatus(t, what, resp, http.StatusAccepted)
	var got frontdoor.StatusBody
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.Status != state {
		t.Errorf("%s: body %s, want state %q", what, body, state)
	}
}

// badRequests: each is refused with its status, and nothing is enqueued.
func badRequests(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, frontdoor.WithMaxBodyBytes(64))
	for _, tc := range []struct {
		name, key, body, contentType string
		want                         int
	}{
		{"no key", "", `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"empty key", `""`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"unterminated key", `"abc`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"key with parameters", `"abc";a=1`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"bare key with a space", `ab c`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"key too long", strings.Repeat("k", frontdoor.MaxKeyBytes+1), `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"not JSON", `"bad-1"`, `prompt=p`, "", http.StatusBadRequest},
		{"not an object", `"bad-2"`, `["p"]`, "", http.StatusBadRequest},
		{"duplicate member", `"bad-3"`, `{"prompt":"p","prompt":"q"}`, "", http.StatusBadRequest},
		{"another key in the body", `"bad-4"`, `{"idempotency_key":"other","prompt":"p"}`, "", http.StatusBadRequest},
		{"too large", `"bad-5"`, `{"prompt":"` + strings.Repeat("p", 64) + `"}`, "", http.StatusRequestEntityTooLarge},
		{"not JSON content", `"bad-6"`, `{"prompt":"p"}`, "text/plain", http.StatusUnsupportedMediaType},
	} {
		r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(tc.body))
		if tc.key != "" {
			r.Header.Set(frontdoor.HeaderKey, tc.key)
		}
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		w := httptest.NewRecorder()
		b.front.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q, want a problem", tc.name, ct)
		}
	}
	if msgs := b.queue.Messages(); len(msgs) != 0 {
		t.Errorf("enqueued %v, want nothing", msgs)
	}
	// The same key in the body is taken, bare keys too, and the worker
	// finds it there.
	r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(`{"idempotency_key":"ok-1","prompt":"p"}`))
	r.Header.Set(frontdoor.HeaderKey, "ok-1")
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	wantStatus(t, "key in the body and the header", w.Result(), http.StatusAccepted)
	wantStatus(t, "empty object", b.post("ok-2", ` {} `), http.StatusAccepted)
	b.deliver()
	for _, key := range []string{"ok-1", "ok-2"} {
		if n := b.providerCalls(key); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
}

// inProgress: a POST while the first of its key still enqueues is 409
// with Retry-After (422 with another body), and enqueues nothing; once the first is done, the
// retry is answered its 202. The status meanwhile is "accepting".
func inProgress(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	entered, release := make(chan struct{}), make(chan struct{})
	slow, err := frontdoor.New(store, frontdoor.EnqueuerFunc(func(ctx context.Context, key string, body []byte) error {
		close(entered)
		<-release
		return b.queue.Enqueue(ctx, key, body)
	}), frontdoor.WithNamespace(Namespace), frontdoor.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan *http.Response, 1)
	go func() {
		r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(`{"prompt":"slow"}`))
		r.Header.Set(frontdoor.HeaderKey, `"ip-1"`)
		w := httptest.NewRecorder()
		slow.ServeHTTP(w, r)
		first <- w.Result()
	}()
	<-entered
	resp := b.post("ip-1", `{"prompt":"slow"}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("409 without Retry-After")
	}
	wantStatus(t, "while the first enqueues", resp, http.StatusConflict)
	wantState(t, "status while the first enqueues", b.get("ip-1"), frontdoor.StateAccepting)
	wantStatus(t, "another body while the first enqueues", b.post("ip-1", `{"prompt":"other"}`), http.StatusUnprocessableEntity)
	close(release)
	want := wantStatus(t, "the first", <-first, http.StatusAccepted)
	if got := wantStatus(t, "the retry", b.post("ip-1", `{"prompt":"slow"}`), http.StatusAccepted); got != want {
		t.Errorf("retry answered %s, want %s", got, want)
	}
	if n := b.queue.Count("ip-1"); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
}

// dropTransport is a client transport whose next `drop` answers are lost:
// the server handled the request, the client sees an error.
type dropTransport struct {
	drop atomic.Int64
}

func (d *dropTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && d.drop.Add(-1) >= 0 {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset: answer lost")
	}
	return resp, err
}

// lostAnswer: the front door accepted the request but its answer was
// lost; the client retries with the same key until answered, and is
// answered the same 202: one message, one provider call.
func lostAnswer(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	srv := httptest.NewServer(b.front)
	defer srv.Close()
	transport := &dropTransport{}
	transport.drop.Store(2)
	client := &http.Client{Transport: transport}
	var resp *http.Response
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequest(http.MethodPost, srv.URL+frontdoor.DefaultPath, bytes.NewReader([]byte(`{"prompt":"lost"}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(frontdoor.HeaderKey, `"lost-1"`)
		if resp, err = client.Do(req); err == nil {
			if attempt != 3 {
				t.Errorf("answered on attempt %d, want 3 (two lost)", attempt)
			}
			break
		}
		if attempt == 5 {
			t.Fatalf("no answer after %d attempts: %v", attempt, err)
		}
	}
	wantStatus(t, "retry", resp, http.StatusAccepted)
	if n := b.queue.Count("lost-1"); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
	b.deliver()
	if n := b.providerCalls("lost-1"); n != 1 {
		t.Errorf("the provider ran %d times, want 1", n)
	}
}

// lostEnqueueAnswer: the queue took the message but its answer was lost,
// so the front door answered 503 and the client retried, sending it
// again: two messages, one provider call. An enqueue refused outright
// leaves nothing behind, and the retry is accepted.
func lostEnqueueAnswer(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	b.queue.Fail(1, true)
	resp := b.post("lq-1", `{"prompt":"x"}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	wantStatus(t, "lost enqueue answer", resp, http.StatusServiceUnavailable)
	wantStatus(t, "lost: nothing accepted", b.get("lq-1"), http.StatusNotFound)
	wantStatus(t, "retry", b.post("lq-1", `{"prompt":"x"}`), http.StatusAccepted)
	if n := b.queue.Count("lq-1"); n != 2 {
		t.Errorf("enqueued %d times, want 2 (one whose answer was lost)", n)
	}
	b.queue.Fail(1, false)
	wantStatus(t, "refused", b.post("lq-2", `{"prompt":"y"}`), http.StatusServiceUnavailable)
	wantStatus(t, "retry of the refused", b.post("lq-2", `{"prompt":"y"}`), http.StatusAccepted)
	b.deliver()
	for _, key := range []string{"lq-1", "lq-2"} {
		if n := b.providerCalls(key); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
	if n := b.queue.Count("lq-2"); n != 1 {
		t.Errorf("lq-2: enqueued %d times, want 1", n)
	}
}

// scopedCallers: with a scope, each caller's keys are its own. Two
// callers posting one key with one body make two requests, two messages
// and two provider calls, each keyed (front record, queued body, worker
// record) by the caller's scope and the key; each reads its own result,
// and a third caller reads 404. A scope that joins differently ("a:b"
// and "c", "a" and "b:c") is another key. A caller whose scope cannot be
// told is refused with 403 and enqueues and reads nothing.
func scopedCallers(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, frontdoor.WithScope(HeaderScope))
	scoped := func(scope, key string) string {
		v, err := idem.NaturalValue(scope, key)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	alice := wantStatus(t, "alice posts", b.postAs("alice", "sc-1", `{"prompt":"same"}`), http.StatusAccepted)
	wantStatus(t, "bob reads alice's key", b.getAs("bob", "sc-1"), http.StatusNotFound)
	resp := b.postAs("bob", "sc-1", `{"prompt":"same"}`)
	if loc := resp.Header.Get("Location"); loc != frontdoor.DefaultPath+"/sc-1" {
		t.Errorf("bob's Location %q, want the client's key, %s/sc-1", loc, frontdoor.DefaultPath)
	}
	if bob := wantStatus(t, "bob posts alice's key and body", resp, http.StatusAccepted); bob != alice {
		t.Errorf("bob answered %s, want the same 202 body as alice's (the client's key only): %s", bob, alice)
	}
	wantStatus(t, "alice retries", b.postAs("alice", "sc-1", `{"prompt":"same"}`), http.StatusAccepted)
	// Another body under a key another caller holds is no mismatch.
	wantStatus(t, "alice posts sc-2", b.postAs("alice", "sc-2", `{"prompt":"alice's"}`), http.StatusAccepted)
	wantStatus(t, "bob posts sc-2, another body", b.postAs("bob", "sc-2", `{"prompt":"bob's"}`), http.StatusAccepted)
	// The client's own key in the body is replaced by the stored one.
	wantStatus(t, "alice posts sc-3, the key in the body", b.postAs("alice", "sc-3", `{"idempotency_key":"sc-3","prompt":"in body"}`), http.StatusAccepted)
	// Scopes and keys are escaped before they are joined.
	wantStatus(t, "a:b posts c", b.postAs("a:b", "c", `{"prompt":"ab c"}`), http.StatusAccepted)
	wantStatus(t, "a reads b:c", b.getAs("a", "b:c"), http.StatusNotFound)
	wantStatus(t, "a posts b:c", b.postAs("a", "b:c", `{"prompt":"a bc"}`), http.StatusAccepted)

	// Refused: no caller, or a scope func that names none.
	for _, caller := range []string{"", "-"} {
		resp := b.postAs(caller, "sc-1", `{"prompt":"same"}`)
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("caller %q: Content-Type %q, want a problem", caller, ct)
		}
		wantStatus(t, fmt.Sprintf("caller %q posts", caller), resp, http.StatusForbidden)
		wantStatus(t, fmt.Sprintf("caller %q reads", caller), b.getAs(caller, "sc-1"), http.StatusForbidden)
	}

	want := map[string]string{ // stored key → prompt
		scoped("alice", "sc-1"): "same", scoped("bob", "sc-1"): "same",
		scoped("alice", "sc-2"): "alice's", scoped("bob", "sc-2"): "bob's",
		scoped("alice", "sc-3"): "in body",
		scoped("a:b", "c"):      "ab c", scoped("a", "b:c"): "a bc",
	}
	msgs := b.queue.Messages()
	if len(msgs) != len(want) {
		t.Errorf("enqueued %d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for _, m := range msgs {
		var body struct {
			Key    string `json:"idempotency_key"`
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(m.Body), &body); err != nil {
			t.Fatal(err)
		}
		if prompt, ok := want[m.Key]; !ok || body.Key != m.Key || body.Prompt != prompt {
			t.Errorf("enqueued under %q the body %s: want a stored key of %v, in the body's idempotency_key", m.Key, m.Body, want)
		}
		if n := b.queue.Count(m.Key); n != 1 {
			t.Errorf("%s: enqueued %d times, want 1", m.Key, n)
		}
	}
	b.deliver()
	for stored := range want {
		if n := b.providerCalls(stored); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", stored, n)
		}
	}
	for _, read := range []struct{ caller, key, prompt string }{
		{"alice", "sc-1", "same"}, {"bob", "sc-1", "same"},
		{"alice", "sc-2", "alice's"}, {"bob", "sc-2", "bob's"},
		{"alice", "sc-3", "in body"}, {"a:b", "c", "ab c"}, {"a", "b:c", "a bc"},
	} {
		if body := wantStatus(t, read.caller+" reads "+read.key, b.getAs(read.caller, read.key), http.StatusOK); body != `{"summary":"of `+read.prompt+`"}` {
			t.Errorf("%s reads %s: %s, want the summary of %q", read.caller, read.key, body, read.prompt)
		}
	}
	for _, key := range []string{"sc-1", "sc-2", "sc-3"} {
		wantStatus(t, "carol reads "+key, b.getAs("carol", key), http.StatusNotFound)
	}
	wantStatus(t, "a reads c", b.getAs("a", "c"), http.StatusNotFound)
}

// unscopedCallers: without a scope every caller shares one key space, as
// Config.Scope says: a second caller's post of a key is the first's
// request (answered its 202, not enqueued), and the second reads the
// first's result.
func unscopedCallers(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	wantStatus(t, "alice posts", b.postAs("alice", "us-1", `{"prompt":"p"}`), http.StatusAccepted)
	wantStatus(t, "bob posts another body", b.postAs("bob", "us-1", `{"prompt":"q"}`), http.StatusUnprocessableEntity)
	wantStatus(t, "bob posts the same", b.postAs("bob", "us-1", `{"prompt":"p"}`), http.StatusAccepted)
	if msgs := b.queue.Messages(); len(msgs) != 1 || msgs[0].Key != "us-1" {
		t.Errorf("enqueued %v, want one message under the client's key", msgs)
	}
	b.deliver()
	wantStatus(t, "bob reads alice's result", b.getAs("bob", "us-1"), http.StatusOK)
}
