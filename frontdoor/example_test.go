package frontdoor_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// memQueue is a queue in memory that sends as a producer does: the key
// put where the Identity reads it (request.Reader.Stamp). A program
// passes a *producer.Producer over the worker's queue instead.
type memQueue struct {
	reader *request.Reader
	msgs   []events.SQSMessage
}

func newMemQueue(id request.Identity) *memQueue {
	r, err := request.NewReader(id)
	if err != nil {
		panic(err)
	}
	return &memQueue{reader: r}
}

func (q *memQueue) Request() request.Identity { return q.reader.Identity() }

func (q *memQueue) Send(_ context.Context, m producer.Message) (producer.Sent, error) {
	msg, id, err := q.reader.Stamp(events.SQSMessage{Body: string(m.Body)}, m.Key, m.Scope)
	if err != nil {
		return producer.Sent{Err: err}, err
	}
	msg.MessageId = fmt.Sprintf("m%d", len(q.msgs)+1)
	q.msgs = append(q.msgs, msg)
	return producer.Sent{Key: id.Value, RecordKey: id.Key, MessageID: msg.MessageId, Attempts: 1}, nil
}

// A request posted twice is enqueued once; the worker's handler runs it,
// and its result is read back by key.
func Example() {
	store, _ := memstore.New()
	id := request.Identity{Namespace: "summarise"} // the worker's: its key in the body's idempotency_key
	queue := newMemQueue(id)
	fd, err := frontdoor.New(store, queue, frontdoor.WithRequest(id))
	if err != nil {
		panic(err)
	}
	do := func(method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Idempotency-Key", `"req-7"`)
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, r)
		fmt.Println(method, w.Code, w.Header().Get("Location"), w.Body)
	}
	do(http.MethodPost, "/requests", `{"prompt":"a long text"}`)
	do(http.MethodPost, "/requests", `{"prompt":"a long text"}`) // a retry
	do(http.MethodGet, "/requests/req-7", "")
	fmt.Println("queued:", queue.msgs[0].Body)

	// The worker, over the same store, by the same Identity.
	worker, _ := handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte(`{"summary":"short"}`), nil
	}, handler.WithRequest(id), handler.WithLogger(slog.New(slog.DiscardHandler)))
	_, _ = worker(context.Background(), events.SQSEvent{Records: queue.msgs})
	do(http.MethodGet, "/requests/req-7", "")
	// Output:
	// POST 202 /requests/req-7 {"idempotency_key":"req-7","status":"queued","status_url":"/requests/req-7"}
	// POST 202 /requests/req-7 {"idempotency_key":"req-7","status":"queued","status_url":"/requests/req-7"}
	// GET 202  {"idempotency_key":"req-7","status":"queued"}
	// queued: {"idempotency_key":"req-7","prompt":"a long text"}
	// GET 200  {"summary":"short"}
}

// A worker keyed by the body's own fields (a natural key): the front door
// sends the body as posted, the worker claims the key the body makes, and
// the Idempotency-Key is the POST's handle, by which the result is read.
func ExampleWithRequest() {
	store, _ := memstore.New()
	id := request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}}
	queue := newMemQueue(id)
	fd, err := frontdoor.New(store, queue, frontdoor.WithRequest(id))
	if err != nil {
		panic(err)
	}
	do := func(method, path, key, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Idempotency-Key", key)
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, r)
		fmt.Println(method, path, w.Code, w.Body)
	}
	do(http.MethodPost, "/requests", `"post-1"`, `{"document_id":"doc-1","version":9}`)
	fmt.Println("queued:", queue.msgs[0].Body)
	worker, _ := handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte(`{"summary":"of doc-1 v9"}`), nil
	}, handler.WithRequest(id), handler.WithLogger(slog.New(slog.DiscardHandler)))
	_, _ = worker(context.Background(), events.SQSEvent{Records: queue.msgs})
	do(http.MethodGet, "/requests/post-1", "", "")
	// Output:
	// POST /requests 202 {"idempotency_key":"post-1","status":"queued","status_url":"/requests/post-1"}
	// queued: {"document_id":"doc-1","version":9}
	// GET /requests/post-1 200 {"summary":"of doc-1 v9"}
}

// Each caller's keys are its own: here the caller is named by a header
// an authenticating proxy would set. Two callers post one key; each is
// its own request, sent with the caller's key and its scope, and one
// cannot read the other's.
func ExampleWithScope() {
	store, _ := memstore.New()
	id := request.Identity{Namespace: "summarise"}
	queue := newMemQueue(id)
	byTenant := func(r *http.Request) (string, error) {
		if tenant := r.Header.Get("X-Tenant"); tenant != "" {
			return tenant, nil
		}
		return "", frontdoor.ErrNoScope
	}
	fd, err := frontdoor.New(store, queue, frontdoor.WithRequest(id), frontdoor.WithScope(byTenant),
		frontdoor.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	do := func(tenant, method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Idempotency-Key", `"req-7"`)
		if tenant != "" {
			r.Header.Set("X-Tenant", tenant)
		}
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, r)
		fmt.Println(tenant, method, w.Code)
	}
	do("acme", http.MethodPost, "/requests", `{"prompt":"a long text"}`)
	do("globex", http.MethodGet, "/requests/req-7", "")
	do("globex", http.MethodPost, "/requests", `{"prompt":"a long text"}`)
	do("", http.MethodPost, "/requests", `{"prompt":"a long text"}`)
	r, _ := request.NewReader(id)
	for _, msg := range queue.msgs {
		read, _ := r.Read(msg)
		fmt.Println(msg.Body, *msg.MessageAttributes[request.ScopeAttribute].StringValue, read.Key)
	}
	// Output:
	// acme POST 202
	// globex GET 404
	// globex POST 202
	//  POST 403
	// {"idempotency_key":"req-7","prompt":"a long text"} acme summarise:acme#req-7
	// {"idempotency_key":"req-7","prompt":"a long text"} globex summarise:globex#req-7
}
