package frontdoor_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/frontdoor/frontdoortest"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

func TestNewRefusesBadSettings(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	id := request.Identity{Namespace: "w"}
	q := frontdoortest.NewQueue(id)
	ns := frontdoor.WithRequest(id)
	for _, tc := range []struct {
		name       string
		store      frontdoor.Store
		q          frontdoor.Queue
		opts       []frontdoor.Option
		pkg, field string
	}{
		{"nil store", nil, q, []frontdoor.Option{ns}, "frontdoor", "store"},
		{"nil queue", store, nil, []frontdoor.Option{ns}, "frontdoor", "queue"},
		{"nil option", store, q, []frontdoor.Option{ns, nil}, "frontdoor", "options[1]"},
		{"no namespace", store, q, nil, "frontdoor", "Namespace"},
		{"accept namespace is the worker's", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.AcceptNamespace = "w" }}, "frontdoor", "AcceptNamespace"},
		{"accept namespace with a control character", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.AcceptNamespace = "w\x00" }}, "frontdoor", "AcceptNamespace"},
		{"two key sources", store, q, []frontdoor.Option{frontdoor.WithRequest(request.Identity{Namespace: "w", KeyField: "a", KeyAttribute: "b"})}, "request", "KeyAttribute"},
		{"malformed key field", store, q, []frontdoor.Option{frontdoor.WithRequest(request.Identity{Namespace: "w", KeyField: "request..id"})}, "request", "KeyField"},
		{"another key field than the queue's", store, q, []frontdoor.Option{frontdoor.WithRequest(request.Identity{Namespace: "w", KeyField: "request.id"})}, "frontdoor", "Request"},
		{"another namespace than the queue's", store, q, []frontdoor.Option{frontdoor.WithRequest(request.Identity{Namespace: "v"})}, "frontdoor", "Request"},
		{"a queue without the namespace", store, frontdoortest.NewQueue(request.Identity{}), []frontdoor.Option{ns}, "frontdoor", "Request"},
		{"relative path", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.Path = "requests" }}, "frontdoor", "Path"},
		{"path ending in a slash", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.Path = "/requests/" }}, "frontdoor", "Path"},
		{"negative body size", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.MaxBodyBytes = -1 }}, "frontdoor", "MaxBodyBytes"},
		{"negative timeout", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.EnqueueTimeout = -1 }}, "frontdoor", "EnqueueTimeout"},
		{"idem setting", store, q, []frontdoor.Option{ns, func(c *frontdoor.Config) { c.Idem.Expiry = -1 }}, "idem", "Expiry"},
	} {
		_, err := frontdoor.New(tc.store, tc.q, tc.opts...)
		bad, ok := errors.AsType[*idem.ConfigError](err)
		if !ok || bad.Package != tc.pkg || bad.Field != tc.field {
			t.Errorf("%s: %v, want a ConfigError for %s %s", tc.name, err, tc.pkg, tc.field)
		}
	}
	if _, err := frontdoor.New(store, q, ns); err != nil {
		t.Errorf("only a namespace: %v", err)
	}
	// The same Identity, spelled with the default key field.
	if _, err := frontdoor.New(store, q, frontdoor.WithRequest(request.Identity{Namespace: "w", KeyField: request.DefaultKeyField})); err != nil {
		t.Errorf("the default key field named: %v", err)
	}
}

// With KeyOptional a POST without a key is enqueued under a key of its
// own, which the answer names; each such POST is a new request.
func TestKeyOptional(t *testing.T) {
	t.Parallel()
	id := request.Identity{Namespace: "w"}
	q := frontdoortest.NewQueue(id)
	fd := must(frontdoor.New(must(memstore.New()), q, frontdoor.WithRequest(id), func(c *frontdoor.Config) { c.KeyOptional = true }))
	r := must(request.NewReader(id))
	var keys []idem.Key
	for range 2 {
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(`{"prompt":"p"}`)))
		if w.Code != http.StatusAccepted {
			t.Fatalf("%d %s, want 202", w.Code, w.Body)
		}
		key, err := strconv.Unquote(w.Header().Get(frontdoor.HeaderKey))
		if err != nil || key == "" || w.Header().Get("Location") != "/requests/"+key {
			t.Fatalf("Idempotency-Key %q, Location %q", w.Header().Get(frontdoor.HeaderKey), w.Header().Get("Location"))
		}
		keys = append(keys, must(r.ID(key, "")).Key)
	}
	msgs := q.Messages()
	if len(msgs) != 2 || keys[0] == keys[1] || msgs[0].Key != keys[0] || msgs[1].Key != keys[1] {
		t.Errorf("keys %v, enqueued %v: want two requests under their own keys", keys, msgs)
	}
}

// A body member path as the key field: the key is put in the nested
// object, every other byte kept, and the worker reading that path finds
// it.
func TestDottedKeyField(t *testing.T) {
	t.Parallel()
	id := request.Identity{Namespace: "w", KeyField: "request.id"}
	store := must(memstore.New())
	q := frontdoortest.NewQueue(id)
	fd := must(frontdoor.New(store, q, frontdoor.WithRequest(id)))
	w := post(fd, "k-1", `{"request":{"model":"m"},"prompt":"p"}`)
	if w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	msgs := q.Messages()
	if want := `{"request":{"id":"k-1","model":"m"},"prompt":"p"}`; len(msgs) != 1 || msgs[0].Msg.Body != want {
		t.Fatalf("sent %+v, want the body %s", msgs, want)
	}
	runWorker(t, store, id, msgs[0].Msg, `{"summary":"s"}`)
	if w := get(fd, "k-1"); w.Code != http.StatusOK || w.Body.String() != `{"summary":"s"}` {
		t.Errorf("status %d %s, want the result", w.Code, w.Body)
	}
}

// A worker keyed by a function of its own: the front door runs it on the
// body as the worker will, and reads the worker's record by the key it
// made.
func TestKeyFunc(t *testing.T) {
	t.Parallel()
	byTicket := func(msg events.SQSMessage) (string, error) {
		obj, err := idemjson.Parse(msg.Body)
		if err != nil {
			return "", err
		}
		v, _ := obj.Field("ticket")
		s, _ := v.(string)
		return strings.ToLower(s), nil
	}
	id := request.Identity{Namespace: "w", KeyFunc: byTicket}
	store := must(memstore.New())
	q := frontdoortest.NewQueue(id)
	fd := must(frontdoor.New(store, q, frontdoor.WithRequest(id)))
	if w := post(fd, "h-1", `{"ticket":"T-9"}`); w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := post(fd, "h-2", `{"other":1}`); w.Code != http.StatusBadRequest {
		t.Errorf("a body the key func makes no key of: %d %s, want 400", w.Code, w.Body)
	}
	msgs := q.Messages()
	if len(msgs) != 1 || msgs[0].Key != "w#t-9" || msgs[0].Msg.Body != `{"ticket":"T-9"}` {
		t.Fatalf("sent %+v, want the body under w#t-9", msgs)
	}
	runWorker(t, store, id, msgs[0].Msg, `{"done":true}`)
	if w := get(fd, "h-1"); w.Code != http.StatusOK || w.Body.String() != `{"done":true}` {
		t.Errorf("status %d %s, want the result", w.Code, w.Body)
	}
}

// otherKeyQueue is a Queue that reports the front door's Identity but
// sends by another, of another namespace: its send's record key is not
// the front door's.
type otherKeyQueue struct{ *frontdoortest.Queue }

func (q otherKeyQueue) Request() request.Identity { return request.Identity{Namespace: "w"} }

// A queue whose send reports another record key than the front door's
// (two Identities the wiring could not tell apart) fails closed: 500, an
// error logged, and nothing kept, so no status read points at a record
// the worker will never write.
func TestQueueSendsUnderAnotherKey(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	q := otherKeyQueue{frontdoortest.NewQueue(request.Identity{Namespace: "v"})}
	fd := must(frontdoor.New(must(memstore.New()), q, frontdoor.WithRequest(request.Identity{Namespace: "w"}), frontdoor.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))))
	if w := post(fd, "k-1", `{"prompt":"p"}`); w.Code != http.StatusInternalServerError {
		t.Errorf("%d %s, want 500", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("nothing logged at ERROR: %s", logs.String())
	}
	if w := get(fd, "k-1"); w.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404: nothing kept", w.Code)
	}
}

// Accept records written before the worker's key was kept in them
// (format 0: the 202 answer alone) are read as that front door made them:
// its request was sent with the key in idempotency_key, unscoped, so the
// worker's record is idem.ClientKey(namespace, key). A repeat of the POST
// is answered the old 202 until the worker has run, then the result; a
// record of a format this front door does not know is 500.
func TestAcceptRecordFormat0(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	id := request.Identity{Namespace: "w"}
	q := frontdoortest.NewQueue(id)
	fd := must(frontdoor.New(store, q, frontdoor.WithRequest(id), frontdoor.WithLogger(slog.New(slog.DiscardHandler))))
	old := `{"idempotency_key":"old-1","status":"queued","status_url":"/requests/old-1"}`
	body := `{"prompt":"p"}`
	keep := func(key, value string) {
		t.Helper()
		fp := must(idemjson.Fingerprint([]byte(body)))
		if _, err := idem.Do(context.Background(), store, must(idem.ClientKey("w#front", key)), fp, func(context.Context) ([]byte, error) { return []byte(value), nil }); err != nil {
			t.Fatal(err)
		}
	}
	keep("old-1", old)
	if w := get(fd, "old-1"); w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), `"queued"`) {
		t.Errorf("format 0, not run: %d %s, want queued", w.Code, w.Body)
	}
	if w := post(fd, "old-1", body); w.Code != http.StatusAccepted || w.Body.String() != old {
		t.Errorf("a repeat: %d %s, want the old 202", w.Code, w.Body)
	}
	runWorker(t, store, id, events.SQSMessage{MessageId: "m", Body: `{"idempotency_key":"old-1","prompt":"p"}`}, `{"summary":"old"}`)
	if w := get(fd, "old-1"); w.Code != http.StatusOK || w.Body.String() != `{"summary":"old"}` {
		t.Errorf("format 0, run: %d %s, want the result", w.Code, w.Body)
	}
	if w := post(fd, "old-1", body); w.Code != http.StatusOK || w.Body.String() != `{"summary":"old"}` {
		t.Errorf("a repeat after the worker ran: %d %s, want the result", w.Code, w.Body)
	}
	if len(q.Messages()) != 0 {
		t.Errorf("sent %d messages, want none", len(q.Messages()))
	}
	keep("new-9", `{"format":9,"record_key":"w#new-9","answer":{}}`)
	if w := get(fd, "new-9"); w.Code != http.StatusInternalServerError {
		t.Errorf("an unknown format: %d %s, want 500", w.Code, w.Body)
	}
	keep("no-key", `{"format":1,"answer":{}}`)
	if w := get(fd, "no-key"); w.Code != http.StatusInternalServerError {
		t.Errorf("no worker's record key: %d %s, want 500", w.Code, w.Body)
	}
}

// post posts body under key to fd.
func post(fd http.Handler, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(body))
	r.Header.Set(frontdoor.HeaderKey, strconv.Quote(key))
	w := httptest.NewRecorder()
	fd.ServeHTTP(w, r)
	return w
}

// get reads key's status from fd.
func get(fd http.Handler, key string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	fd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/requests/"+url.PathEscape(key), nil))
	return w
}

// runWorker runs msg on a worker by id over store, whose work returns
// result.
func runWorker(t *testing.T, store idem.Store, id request.Identity, msg events.SQSMessage, result string) {
	t.Helper()
	work := must(handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte(result), nil },
		handler.WithRequest(id), handler.WithLogger(slog.New(slog.DiscardHandler))))
	resp, err := work(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
	if err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker: %v %v", err, resp)
	}
}

// memBlobs is an idem.Blobs in memory.
type memBlobs struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (b *memBlobs) Put(_ context.Context, name string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.objects[name] = slices.Clone(data)
	return nil
}

func (b *memBlobs) Get(_ context.Context, name string, size int) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, ok := b.objects[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, idem.ErrBlobMissing)
	}
	return slices.Clone(data), nil
}

// A result the worker offloaded to its blob store is read from there; a
// front door without the blob store cannot read it (500), and a result
// the store could not keep is 204 with its size.
func TestStatusReadsEveryStoredForm(t *testing.T) {
	t.Parallel()
	store := must(memstore.New(memstore.WithMaxResultBytes(20_000)))
	blobs := &memBlobs{objects: map[string][]byte{}}
	results := map[string][]byte{
		"big":     []byte(hex.EncodeToString(random(8000))), // 16,000 bytes, offloaded
		"huge":    []byte(strings.Repeat("x", 30_000)),      // kept inline, uncompressed: too large, omitted
		"inline":  []byte(`{"summary":"s"}`),
		"unknown": nil,
	}
	work := func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		var req struct {
			Key string `json:"idempotency_key"`
		}
		err := json.Unmarshal([]byte(msg.Body), &req)
		return results[req.Key], err
	}
	id := request.Identity{Namespace: "w"}
	q := frontdoortest.NewQueue(id)
	withBlobs := must(frontdoor.New(store, q, frontdoor.WithRequest(id), func(c *frontdoor.Config) { c.Idem.Blobs = blobs }))
	for _, key := range []string{"big", "huge", "inline"} {
		if w := post(withBlobs, key, `{}`); w.Code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", key, w.Code, w.Body)
		}
	}
	quiet := handler.WithLogger(slog.New(slog.DiscardHandler))
	offloading := must(handler.New(store, work, handler.WithRequest(id), quiet, handler.WithIdem(idem.WithBlobs(blobs), func(c *idem.Config) { c.OffloadAbove = 100 })))
	inline := must(handler.New(store, work, handler.WithRequest(id), quiet, handler.WithIdem(func(c *idem.Config) { c.CompressAbove = -1 })))
	for i, m := range q.Messages() {
		worker := offloading
		if i == 1 { // huge
			worker = inline
		}
		resp, err := worker(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m.Msg}})
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("worker on %s: %v %v", m.Key, err, resp)
		}
	}
	for _, key := range []string{"big", "inline"} {
		if w := get(withBlobs, key); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), results[key]) {
			t.Errorf("%s: %d, %d bytes; want 200 with the %d bytes stored", key, w.Code, w.Body.Len(), len(results[key]))
		}
	}
	if w := get(withBlobs, "huge"); w.Code != http.StatusNoContent || w.Header().Get(frontdoor.HeaderOmitted) != "30000" {
		t.Errorf("omitted result: %d %s=%q, want 204 with its size", w.Code, frontdoor.HeaderOmitted, w.Header().Get(frontdoor.HeaderOmitted))
	}
	if w := get(withBlobs, "unknown"); w.Code != http.StatusNotFound {
		t.Errorf("unknown: %d, want 404", w.Code)
	}
	without := must(frontdoor.New(store, q, frontdoor.WithRequest(id), frontdoor.WithLogger(slog.New(slog.DiscardHandler))))
	if w := get(without, "big"); w.Code != http.StatusInternalServerError {
		t.Errorf("offloaded result without the blob store: %d, want 500", w.Code)
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// sentThenHeld is a Queue whose sends take the message, then wait for
// release before answering: the front door's claim stays in progress with
// the message on the queue.
type sentThenHeld struct {
	*frontdoortest.Queue
	sent, release chan struct{}
}

func (q *sentThenHeld) Send(ctx context.Context, m producer.Message) (producer.Sent, error) {
	s, err := q.Queue.Send(ctx, m)
	close(q.sent)
	<-q.release
	return s, err
}

// While the front door's claim is still in progress (its send not yet
// answered, or its process gone after sending), a key the front door put
// in the message is the worker's key: a status read finds the worker's
// record by it, and answers its result once the worker ran it. With
// KeyFields the worker's key is known from the accept record only: the
// status is "accepting" until the claim completes.
func TestStatusWhileTheClaimIsHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   request.Identity
		body string
		want int
	}{
		{request.Identity{Namespace: "w"}, `{"prompt":"p"}`, http.StatusOK},
		{request.Identity{Namespace: "w", KeyAttribute: "k"}, `{"prompt":"p"}`, http.StatusOK},
		{request.Identity{Namespace: "w", KeyFields: []string{"doc"}}, `{"doc":"d"}`, http.StatusAccepted},
	} {
		store := must(memstore.New())
		q := &sentThenHeld{Queue: frontdoortest.NewQueue(tc.id), sent: make(chan struct{}), release: make(chan struct{})}
		fd := must(frontdoor.New(store, q, frontdoor.WithRequest(tc.id)))
		done := make(chan int, 1)
		go func() { done <- post(fd, "held-1", tc.body).Code }()
		<-q.sent
		runWorker(t, store, tc.id, q.Messages()[0].Msg, `{"summary":"s"}`)
		w := get(fd, "held-1")
		if w.Code != tc.want {
			t.Errorf("%s, claim held, worker done: %d %s, want %d", tc.id.Source(), w.Code, w.Body, tc.want)
		}
		close(q.release)
		if code := <-done; code != http.StatusAccepted {
			t.Errorf("%s: POST %d, want 202", tc.id.Source(), code)
		}
		if w := get(fd, "held-1"); w.Code != http.StatusOK {
			t.Errorf("%s, claim completed: %d %s, want 200", tc.id.Source(), w.Code, w.Body)
		}
	}
}
