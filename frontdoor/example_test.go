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
)

// A request posted twice is enqueued once; the worker's handler runs it,
// and its result is read back by key.
func Example() {
	store, _ := memstore.New()
	var queue []string // the worker's queue
	enqueue := frontdoor.EnqueuerFunc(func(_ context.Context, _ string, body []byte) error {
		queue = append(queue, string(body))
		return nil
	})
	fd, err := frontdoor.New(store, enqueue, frontdoor.WithNamespace("summarise"))
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
	fmt.Println("queued:", queue)

	// The worker, over the same store, keyed on the body's idempotency_key.
	worker, _ := handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte(`{"summary":"short"}`), nil
	}, handler.WithNamespace("summarise"), handler.WithLogger(slog.New(slog.DiscardHandler)))
	_, _ = worker(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: queue[0]}}})
	do(http.MethodGet, "/requests/req-7", "")
	// Output:
	// POST 202 /requests/req-7 {"idempotency_key":"req-7","status":"queued","status_url":"/requests/req-7"}
	// POST 202 /requests/req-7 {"idempotency_key":"req-7","status":"queued","status_url":"/requests/req-7"}
	// GET 202  {"idempotency_key":"req-7","status":"queued"}
	// queued: [{"idempotency_key":"req-7","prompt":"a long text"}]
	// GET 200  {"summary":"short"}
}

// Each caller's keys are its own: here the caller is named by a header
// an authenticating proxy would set. Two callers post one key; each is
// its own request, and one cannot read the other's.
func ExampleWithScope() {
	store, _ := memstore.New()
	var queue []string
	enqueue := frontdoor.EnqueuerFunc(func(_ context.Context, _ string, body []byte) error {
		queue = append(queue, string(body))
		return nil
	})
	byTenant := func(r *http.Request) (string, error) {
		if tenant := r.Header.Get("X-Tenant"); tenant != "" {
			return tenant, nil
		}
		return "", frontdoor.ErrNoScope
	}
	fd, err := frontdoor.New(store, enqueue, frontdoor.WithNamespace("summarise"), frontdoor.WithScope(byTenant),
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
	fmt.Println(strings.Join(queue, "\n"))
	// Output:
	// acme POST 202
	// globex GET 404
	// globex POST 202
	//  POST 403
	// {"idempotency_key":"acme:req-7","prompt":"a long text"}
	// {"idempotency_key":"globex:req-7","prompt":"a long text"}
}
