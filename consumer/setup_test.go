package consumer_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// bundle is one test's store, work and what the work did.
type bundle struct {
	t     *testing.T
	store idem.Store
	log   *slog.Logger

	mu       sync.Mutex
	started  map[string]int // key → executions started
	finished map[string]int // key → executions that returned a result
	order    []string       // bodies in the order their work started

	// work, when set, runs inside each execution; its error fails it.
	work func(ctx context.Context, msg events.SQSMessage) error
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return &bundle{t: t, store: must(memstore.New()), log: testLogger(t),
		started: map[string]int{}, finished: map[string]int{}}
}

// handler returns a handler.New handler over the bundle's store whose
// function records its executions by key.
func (b *bundle) handler(opts ...handler.Option) handler.Handler {
	fn := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		key := keyOf(b.t, msg.Body)
		b.mu.Lock()
		b.started[key]++
		b.order = append(b.order, msg.Body)
		work := b.work
		b.mu.Unlock()
		if work != nil {
			if err := work(ctx, msg); err != nil {
				return nil, err
			}
		}
		b.mu.Lock()
		b.finished[key]++
		b.mu.Unlock()
		return []byte("done:" + key), nil
	}
	opts = append([]handler.Option{handler.WithRequest(request.Identity{Namespace: "consumer-test"}), handler.WithLogger(b.log)}, opts...)
	return must(handler.New(b.store, fn, opts...))
}

func (b *bundle) counts(key string) (started, finished int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.started[key], b.finished[key]
}

func (b *bundle) startedOrder() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.order...)
}

// start starts a consumer and stops it (cancelling its work) when the
// test ends.
func (b *bundle) start(client consumer.SQS, url string, h handler.Handler, opts ...consumer.Option) *consumer.Consumer {
	b.t.Helper()
	opts = append([]consumer.Option{consumer.WithConfig(consumer.Config{Logger: b.log, RetryMin: 10 * time.Millisecond, RetryMax: 100 * time.Millisecond,
		WaitTime: time.Second})}, opts...)
	c := must(consumer.New(client, url, h, opts...))
	if err := c.Start(context.Background()); err != nil {
		b.t.Fatalf("Start: %v", err)
	}
	b.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.StopAndCancel(ctx); err != nil && !errors.Is(err, consumer.ErrNotStarted) {
			b.t.Errorf("StopAndCancel: %v", err)
		}
	})
	return c
}

// body is a message body carrying key; copies of a request have the same
// body.
func body(key string) string {
	b, _ := json.Marshal(map[string]any{"idempotency_key": key})
	return string(b)
}

func keyOf(t *testing.T, body string) string {
	var v struct {
		Key string `json:"idempotency_key"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Errorf("body %q: %v", body, err)
	}
	return v.Key
}

// eventually waits, up to a generous bound, until cond holds, failing the
// test with what if it never does. It bounds a wait; it times nothing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testLogger logs to the test's log until the test ends.
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	t    *testing.T
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(string(p[:len(p)-1]))
	}
	return len(p), nil
}

var _ io.Writer = (*testWriter)(nil)
