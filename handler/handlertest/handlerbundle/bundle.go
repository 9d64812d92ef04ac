// Package handlerbundle runs the handler over a store a test passes and
// reads back what it did: a Bundle wraps a function with recording hooks
// and a JSON logger, invokes the handler, and holds its calls, replays,
// failures and logs; the messages and checks the tests build on come with
// it. Both handler's own tests and the handler tests that run against
// DynamoDB Local (in the dynamostore module) import it, so that neither
// copies the other. It imports no store driver.
//
// It is public only because Go has no internal/ directory both modules'
// tests may import, and it is not covered by the v1 promise: a minor
// release may change it (scripts/release-check.sh shows its changes and
// rules on none). A test of yours wants handler/handlertest.
package handlerbundle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

const (
	// Namespace is the namespace WrapStore gives the handler.
	Namespace = "test-fn"
	// StandardARN is the event source of Msg's messages: a standard queue.
	StandardARN = "arn:aws:sqs:eu-west-1:123456789012:jobs"
	// FIFOARN is the event source of FIFOMsg's messages: a FIFO queue.
	FIFOARN = "arn:aws:sqs:eu-west-1:123456789012:jobs.fifo"
)

// Bundle is one test's handler hooks and logs, and what the handler did.
type Bundle struct {
	// T is the test the bundle reports to.
	T *testing.T
	// Logs holds every line the bundle's logger wrote.
	Logs *SyncBuffer

	mu       sync.Mutex
	calls    []string          // message ids the function ran for, in order
	replays  map[string]string // message id → replayed result
	failures map[string]error  // message id → reported reason
}

// New returns an empty Bundle reporting to t.
func New(t *testing.T) *Bundle {
	t.Helper()
	return &Bundle{T: t, Logs: &SyncBuffer{},
		replays: map[string]string{}, failures: map[string]error{}}
}

// WrapStore wraps fn (nil: returns "result:" + message id) over store with
// the bundle's recording hooks, logger and namespace, and opts.
func (b *Bundle) WrapStore(store idem.Store, fn handler.Func, opts ...handler.Option) handler.Handler {
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
		handler.WithRequest(request.Identity{Namespace: Namespace}),
		handler.WithLogger(b.Logger()),
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
	h, err := handler.New(store, recorded, append(base, opts...)...)
	if err != nil {
		panic(err) // a test's options are known good: a bad one is the test's bug
	}
	return h
}

// Logger writes JSON lines, every level, into the bundle's logs.
func (b *Bundle) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Invoke runs h on msgs with a deadline a minute away and returns the
// reported message ids. The handler must not return an error, but
// handler.ErrBatchFailed with a response that lists every message: Lambda
// then brings back the whole batch, the same messages.
func (b *Bundle) Invoke(h handler.Handler, msgs ...events.SQSMessage) []string {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := h(ctx, events.SQSEvent{Records: msgs})
	if err != nil && !errors.Is(err, handler.ErrBatchFailed) {
		b.T.Fatalf("handler returned an error: %v", err)
	}
	if err != nil {
		listed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			listed[f.ItemIdentifier] = true
		}
		for _, m := range msgs {
			if !listed[m.MessageId] {
				b.T.Fatalf("handler returned %v, but its response does not list %s: the error brings back more than the response", err, m.MessageId)
			}
		}
	}
	return IDs(resp)
}

// IDs returns the message ids resp reports, in order; never nil.
func IDs(resp events.SQSEventResponse) []string {
	out := []string{}
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// CallCount returns how many times the function ran for a message id.
func (b *Bundle) CallCount(id string) int {
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

// TotalCalls returns how many times the function ran, for any message.
func (b *Bundle) TotalCalls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

// Calls returns a copy of the message ids the function ran for, in order.
func (b *Bundle) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

// Replays returns a copy of the replayed results, by message id.
func (b *Bundle) Replays() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.replays)
}

// Replayed returns the result replayed for a message id, and whether one was.
func (b *Bundle) Replayed(id string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.replays[id]
	return v, ok
}

// Failure returns the reason a message was reported, as a
// *handler.RecordError.
func (b *Bundle) Failure(id string) *handler.RecordError {
	b.T.Helper()
	b.mu.Lock()
	err := b.failures[id]
	b.mu.Unlock()
	e, ok := errors.AsType[*handler.RecordError](err)
	if !ok {
		b.T.Fatalf("message %s: failure %v is not a *handler.RecordError", id, err)
	}
	if e.MessageID != id {
		b.T.Errorf("message %s: failure names message %q", id, e.MessageID)
	}
	return e
}

// summary returns the last batch summary line's fields.
func (b *Bundle) summary() map[string]any {
	b.T.Helper()
	lines := b.Logged("idemq: batch")
	if len(lines) == 0 {
		b.T.Fatal("no batch summary logged")
	}
	return lines[len(lines)-1]
}

// Logged returns the fields of every log line with message msg, in order.
func (b *Bundle) Logged(msg string) []map[string]any {
	b.T.Helper()
	var out []map[string]any
	for line := range bytes.Lines(b.Logs.Bytes()) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			b.T.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// WantSummary checks the named counts of the last summary.
func (b *Bundle) WantSummary(want map[string]int) {
	b.T.Helper()
	got := b.summary()
	for k, v := range want {
		if n, _ := got[k].(float64); int(n) != v {
			b.T.Errorf("summary %s = %v, want %d (summary %v)", k, got[k], v, got)
		}
	}
}

// Msg is a standard-queue message whose body carries idempotency key k.
func Msg(id, k string) events.SQSMessage {
	return events.SQSMessage{
		MessageId:      id,
		ReceiptHandle:  "rh-" + id,
		Body:           fmt.Sprintf(`{"idempotency_key":%q,"prompt":"p"}`, k),
		EventSourceARN: StandardARN,
		AWSRegion:      "eu-west-1",
	}
}

// FIFOMsg is a FIFO message of group g whose body carries idempotency key k.
func FIFOMsg(id, k, g string) events.SQSMessage {
	m := Msg(id, k)
	m.EventSourceARN = FIFOARN
	m.Attributes = map[string]string{"MessageGroupId": g}
	return m
}

// WantIDs checks that got, a batch's reported message ids, is want, in
// order; no want means none reported.
func WantIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("batch item failures %q, want %q", got, want)
	}
}

// FailOn returns a function that fails for the given message ids and
// returns "ok" for the others.
func FailOn(ids ...string) handler.Func {
	return func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if slices.Contains(ids, msg.MessageId) {
			return nil, errors.New("failed on purpose")
		}
		return []byte("ok"), nil
	}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// Bytes returns a copy of what the buffer holds.
func (s *SyncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.buf.Bytes())
}
