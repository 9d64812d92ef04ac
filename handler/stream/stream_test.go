package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

const namespace = "streamtest"

// work is a stream handler's function under test: it counts its calls
// per key, in order, and fails or panics as a key's plan says.
type work struct {
	mu     sync.Mutex
	calls  []string       // the message ids of the calls, in order
	byKey  map[string]int // key → calls
	fails  map[string]int // key → how many more calls fail
	panics map[string]int // key → how many more calls panic
}

func newWork() *work {
	return &work{byKey: map[string]int{}, fails: map[string]int{}, panics: map[string]int{}}
}

type body struct {
	Key string `json:"idempotency_key"`
}

func (w *work) fn(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	var b body
	if err := json.Unmarshal([]byte(msg.Body), &b); err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.calls = append(w.calls, msg.MessageId)
	w.byKey[b.Key]++
	fail, panics := w.fails[b.Key] > 0, w.panics[b.Key] > 0
	if fail {
		w.fails[b.Key]--
	} else if panics {
		w.panics[b.Key]--
	}
	w.mu.Unlock()
	switch {
	case fail:
		return nil, errors.New("the provider said no")
	case panics:
		panic("the provider's client panicked")
	}
	return []byte("done " + b.Key), nil
}

func (w *work) count(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byKey[key]
}

func newHandlers(t *testing.T, w *work, opts ...handler.Option) (*stream.Handlers, idem.Store) {
	t.Helper()
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]handler.Option{
		handler.WithRequest(request.Identity{Namespace: namespace}),
		handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	}, opts...)
	h, err := handler.New(store, w.fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return stream.New(h), store
}

// rec is one Kinesis record: its sequence number, partition key and the
// idempotency key in its data.
type rec struct{ seq, pk, key string }

func kinesisEvent(recs ...rec) events.KinesisEvent {
	var e events.KinesisEvent
	for _, r := range recs {
		e.Records = append(e.Records, events.KinesisEventRecord{
			EventID:        "shardId-000000000000:" + r.seq,
			EventSource:    "aws:kinesis",
			EventSourceArn: "arn:aws:kinesis:us-east-1:000000000000:stream/streamtest",
			AwsRegion:      "us-east-1",
			Kinesis: events.KinesisRecord{
				SequenceNumber: r.seq,
				PartitionKey:   r.pk,
				Data:           fmt.Appendf(nil, `{"idempotency_key":%q}`, r.key),
			},
		})
	}
	return e
}

func failures(resp events.KinesisEventResponse) []string {
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

// shard is a batch of five records over three partition keys.
var shard = []rec{
	{"101", "A", "a1"},
	{"102", "B", "b1"},
	{"103", "B", "b2"},
	{"104", "A", "a2"},
	{"105", "C", "c1"},
}

func TestFailureCheckpointsAtFirstRecordNotDone(t *testing.T) {
	t.Parallel()
	w := newWork()
	w.fails["b1"] = 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kinesis(t.Context(), kinesisEvent(shard...))
	if err != nil {
		t.Fatal(err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"102"}) {
		t.Fatalf("batch item failures %v; want the failed record's sequence number only, [102]", got)
	}
	if n := w.count("b2"); n != 0 {
		t.Errorf("b2, after b1 of its partition key failed, ran %d times; want 0", n)
	}
	for _, k := range []string{"a1", "a2", "c1"} {
		if n := w.count(k); n != 1 {
			t.Errorf("%s (another partition key) ran %d times; want 1", k, n)
		}
	}

	// Lambda sends the shard again from the checkpoint: b1 now succeeds,
	// b2 runs, a2 and c1 replay their stored results without a call.
	resp, err = s.Kinesis(t.Context(), kinesisEvent(shard[1:]...))
	if err != nil {
		t.Fatal(err)
	}
	if got := failures(resp); len(got) != 0 {
		t.Fatalf("retry: batch item failures %v; want none", got)
	}
	want := map[string]int{"a1": 1, "b1": 2, "b2": 1, "a2": 1, "c1": 1}
	for k, n := range want {
		if got := w.count(k); got != n {
			t.Errorf("after the retry %s ran %d times; want %d", k, got, n)
		}
	}
	if got, want := w.calls, []string{"101", "102", "104", "105", "102", "103"}; !sameOrderPerKey(got, want) {
		t.Errorf("calls %v; want %v (in order per partition key)", got, want)
	}
}

// sameOrderPerKey reports whether got and want hold the same calls, each
// partition key's (here: A 10[14], B 10[23], C 105) in the same order.
func sameOrderPerKey(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	pk := map[string]string{"101": "A", "104": "A", "102": "B", "103": "B", "105": "C"}
	split := func(calls []string) map[string][]string {
		m := map[string][]string{}
		for _, c := range calls {
			m[pk[c]] = append(m[pk[c]], c)
		}
		return m
	}
	g, wt := split(got), split(want)
	for k := range wt {
		if !slices.Equal(g[k], wt[k]) {
			return false
		}
	}
	return true
}

func TestInProgressKeyIsTheCheckpoint(t *testing.T) {
	t.Parallel()
	w := newWork()
	s, store := newHandlers(t, w)
	key, err := idem.ClientKey(namespace, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handlertest.Hold(t.Context(), store, key, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	resp, err := s.Kinesis(t.Context(), kinesisEvent(shard...))
	if err != nil {
		t.Fatalf("a key in progress must be a checkpoint, not an error: %v", err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"102"}) {
		t.Fatalf("batch item failures %v; want [102], the record whose key is in progress", got)
	}
	if n, m := w.count("b1"), w.count("b2"); n != 0 || m != 0 {
		t.Errorf("b1 ran %d times, b2 %d; want 0 and 0 (b1 is another worker's, b2 waits behind it)", n, m)
	}
	if n := w.count("c1"); n != 1 {
		t.Errorf("c1 (another partition key) ran %d times; want 1", n)
	}
}

func TestAllDoneReportsNothing(t *testing.T) {
	t.Parallel()
	w := newWork()
	s, _ := newHandlers(t, w, handler.WithConcurrency(1))
	resp, err := s.Kinesis(t.Context(), kinesisEvent(append(slices.Clone(shard), rec{"106", "C", "a1"})...))
	if err != nil {
		t.Fatal(err)
	}
	if resp.BatchItemFailures == nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("batch item failures %#v; want an empty list", resp.BatchItemFailures)
	}
	if n := w.count("a1"); n != 1 {
		t.Errorf("a1, twice in the batch, ran %d times; want 1", n)
	}
	// The same batch again (a whole-batch retry): every record replays.
	if _, err := s.Kinesis(t.Context(), kinesisEvent(shard...)); err != nil {
		t.Fatal(err)
	}
	if got := len(w.calls); got != 5 {
		t.Errorf("%d calls after the batch came twice; want 5", got)
	}
}

func TestPanicFailsItsRecord(t *testing.T) {
	t.Parallel()
	w := newWork()
	w.panics["a1"] = 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kinesis(t.Context(), kinesisEvent(shard...))
	if err != nil {
		t.Fatal(err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"101"}) {
		t.Fatalf("batch item failures %v; want [101], the record that panicked", got)
	}
	if n := w.count("a2"); n != 0 {
		t.Errorf("a2, after a1 of its partition key panicked, ran %d times; want 0", n)
	}
}

func TestBadRecordIsTheCheckpoint(t *testing.T) {
	t.Parallel()
	w := newWork()
	s, _ := newHandlers(t, w)
	e := kinesisEvent(shard...)
	e.Records[3].Kinesis.Data = []byte("not json")
	resp, err := s.Kinesis(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"104"}) {
		t.Fatalf("batch item failures %v; want [104], the record without a readable key", got)
	}
}

func TestRefusesWhatItCannotVouchFor(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, nil
	}
	if _, err := stream.New(ok).Kinesis(t.Context(), kinesisEvent(shard...)); err == nil {
		t.Error("a handler that is not idemq's: no error; want the whole batch back")
	}
	if _, err := stream.New(nil).Kinesis(t.Context(), kinesisEvent(shard...)); err == nil {
		t.Error("stream.New(nil): no error")
	}
	s, _ := newHandlers(t, newWork())
	if _, err := s.Kinesis(t.Context(), kinesisEvent(rec{"1", "A", "a"}, rec{"1", "B", "b"})); err == nil {
		t.Error("a sequence number twice: no error")
	}
	if _, err := s.Kinesis(t.Context(), kinesisEvent(rec{"", "A", "a"})); err == nil {
		t.Error("no sequence number: no error")
	}
}

func storeFor(t *testing.T) idem.Store {
	t.Helper()
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func requestOf(keyField string) request.Identity {
	return request.Identity{Namespace: namespace, KeyField: keyField}
}

func quiet() handler.Option {
	return handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// A batch whose every record fails reports its first record, with no
// error: an error would make Lambda ignore the checkpoint (and bisect the
// batch), where SQS's handler returns handler.ErrBatchFailed.
func TestEveryRecordFailedIsACheckpointNotAnError(t *testing.T) {
	t.Parallel()
	w := newWork()
	w.fails["a1"], w.fails["b1"] = 1, 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kinesis(t.Context(), kinesisEvent(shard[0], shard[1]))
	if err != nil {
		t.Fatalf("error %v; want the checkpoint", err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"101"}) {
		t.Fatalf("batch item failures %v; want [101]", got)
	}
}

func TestUnknownItemIdentifierFailsTheBatch(t *testing.T) {
	t.Parallel()
	inner, err := handler.New(storeFor(t), newWork().fn, handler.WithRequest(request.Identity{Namespace: namespace}), quiet())
	if err != nil {
		t.Fatal(err)
	}
	// A handler that reports what no record is: not to be trusted.
	h := stream.New(func(ctx context.Context, e events.SQSEvent) (events.SQSEventResponse, error) {
		resp, err := inner(ctx, e)
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: "999"})
		return resp, err
	})
	if _, err := h.Kinesis(t.Context(), kinesisEvent(shard...)); err == nil {
		t.Error("a batch item failure naming no record: no error; want the whole batch back")
	}
}
