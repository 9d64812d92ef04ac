// Package handler_test runs the handler against the DynamoDB store: the
// tests of handler that need DynamoDB Local, kept in the dynamostore module
// so that the root module requires no driver. The helpers below are the
// part of handler/setup_test.go these tests use.
package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

const (
	ns          = "test-fn"
	standardARN = "arn:aws:sqs:eu-west-1:123456789012:jobs"
	fifoARN     = "arn:aws:sqs:eu-west-1:123456789012:jobs.fifo"
)

// bundle is one test's handler, store, and what they did.
type bundle struct {
	t    *testing.T
	logs *syncBuffer

	mu       sync.Mutex
	calls    []string          // message ids the function ran for, in order
	replays  map[string]string // message id → replayed result
	failures map[string]error  // message id → reported reason
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return &bundle{t: t, logs: &syncBuffer{},
		replays: map[string]string{}, failures: map[string]error{}}
}

// wrapStore wraps fn (nil: returns "result:" + message id) over store with
// the bundle's recording hooks, logger and namespace, and opts.
func (b *bundle) wrapStore(store idem.Store, fn handler.Func, opts ...handler.Option) handler.Handler {
	if fn == nil {
		fn = func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
			return []byte("result:" + msg.MessageId), nil
		}
	}
	recorded := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		b.mu.Lock()
		b.calls = append(b.calls, msg.MessageId)
		b.mu.Unlock()
		return fn(ctx, msg)
	}
	base := []handler.Option{
		handler.WithNamespace(ns),
		handler.WithLogger(b.logger()),
		handler.WithReplayHook(func(_ context.Context, msg events.SQSMessage, result []byte) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.replays[msg.MessageId] = string(result)
			return nil
		}),
		handler.WithFailureHook(func(_ context.Context, msg events.SQSMessage, err error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.failures[msg.MessageId] = err
		}),
	}
	return handler.WrapSQS(store, recorded, append(base, opts...)...)
}

// logger writes JSON lines, every level, into the bundle's logs.
func (b *bundle) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// invoke runs h on msgs with a deadline a minute away and returns the
// reported message ids. The handler must not return an error.
func (b *bundle) invoke(h handler.Handler, msgs ...events.SQSMessage) []string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := h(ctx, events.SQSEvent{Records: msgs})
	if err != nil {
		b.t.Fatalf("handler returned an error: %v", err)
	}
	return ids(resp)
}

func ids(resp events.SQSEventResponse) []string {
	out := []string{}
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// callCount returns how many times the function ran for a message id.
func (b *bundle) callCount(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, c := range b.calls {
		if c == id {
			n++
		}
	}
	return n
}

func (b *bundle) totalCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

func (b *bundle) replayed(id string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.replays[id]
	return v, ok
}

// failure returns the reason a message was reported, as a
// *handler.RecordError.
func (b *bundle) failure(id string) *handler.RecordError {
	b.t.Helper()
	b.mu.Lock()
	err := b.failures[id]
	b.mu.Unlock()
	e, ok := errors.AsType[*handler.RecordError](err)
	if !ok {
		b.t.Fatalf("message %s: failure %v is not a *handler.RecordError", id, err)
	}
	if e.MessageID != id {
		b.t.Errorf("message %s: failure names message %q", id, e.MessageID)
	}
	return e
}

// summary returns the last batch summary line's fields.
func (b *bundle) summary() map[string]any {
	b.t.Helper()
	lines := b.logged("idemq: batch")
	if len(lines) == 0 {
		b.t.Fatal("no batch summary logged")
	}
	return lines[len(lines)-1]
}

// logged returns the fields of every log line with message msg, in order.
func (b *bundle) logged(msg string) []map[string]any {
	b.t.Helper()
	var out []map[string]any
	for line := range bytes.Lines(b.logs.Bytes()) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			b.t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// wantSummary checks the named counts of the last summary.
func (b *bundle) wantSummary(want map[string]int) {
	b.t.Helper()
	got := b.summary()
	for k, v := range want {
		if n, _ := got[k].(float64); int(n) != v {
			b.t.Errorf("summary %s = %v, want %d (summary %v)", k, got[k], v, got)
		}
	}
}

// msg is a standard-queue message whose body carries idempotency key k.
func msg(id, k string) events.SQSMessage {
	return events.SQSMessage{
		MessageId:      id,
		ReceiptHandle:  "rh-" + id,
		Body:           fmt.Sprintf(`{"idempotency_key":%q,"prompt":"p"}`, k),
		EventSourceARN: standardARN,
		AWSRegion:      "eu-west-1",
	}
}

// fifoMsg is a FIFO message of group g.
func fifoMsg(id, k, g string) events.SQSMessage {
	m := msg(id, k)
	m.EventSourceARN = fifoARN
	m.Attributes = map[string]string{"MessageGroupId": g}
	return m
}

// holdKey makes another worker hold key k with a lease until leaseUntil.
func wantIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("batch item failures %q, want %q", got, want)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.buf.Bytes())
}

// fakeClock is a clock tests move by hand.
// countingStore counts Claim requests and can fail them.
// failOn returns a function that fails for the given message ids.
func failOn(ids ...string) handler.Func {
	return func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if slices.Contains(ids, msg.MessageId) {
			return nil, errors.New("failed on purpose")
		}
		return []byte("ok"), nil
	}
}
