package handler_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/handlerbundle"
	"github.com/idemq/idemq/request"
)

// steps records the keys a step handler's step was called with, and fails
// or panics for the keys it is told to.
type steps struct {
	mu     sync.Mutex
	keys   []string
	fail   map[string]bool
	panics map[string]bool
}

func (s *steps) step(_ context.Context, _ events.SQSMessage, key string) error {
	s.mu.Lock()
	s.keys = append(s.keys, key)
	s.mu.Unlock()
	switch {
	case s.panics[key]:
		panic("the step's client panicked")
	case s.fail[key]:
		return errors.New("throttled")
	}
	return nil
}

func (s *steps) called() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.keys))
}

// readKey reads the default Identity's key, as a dispatcher reads it.
func readKey(t *testing.T) handler.KeyFunc {
	t.Helper()
	r := must(request.NewReader(request.Identity{}))
	return func(m events.SQSMessage) (string, error) {
		id, err := r.ReadKey(m)
		return id.Value, err
	}
}

// A step handler answers with the handler's decision: a record whose step
// returned nil is acknowledged and counted dispatched; one whose step
// failed or panicked (ErrPanic), or whose key cannot be read (its step not
// run, op "key"), comes back, each with a RecordError. The step gets the
// key as read, without a namespace, and copies of a key each run their
// own step.
func TestStepHandler(t *testing.T) {
	t.Parallel()
	b := handlerbundle.New(t)
	s := &steps{fail: map[string]bool{"k2": true}, panics: map[string]bool{"k3": true}}
	failures := map[string]*handler.RecordError{}
	h := must(handler.NewStepHandler(readKey(t), s.step, handler.WithLogger(b.Logger()),
		handler.WithFailureHook(func(_ context.Context, m events.SQSMessage, err error) {
			failures[m.MessageId], _ = errors.AsType[*handler.RecordError](err)
		})))
	got := b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k3"),
		handlerbundle.Msg("m4", ""), handlerbundle.Msg("m5", "k1"))
	handlerbundle.WantIDs(t, got, "m2", "m3", "m4")
	if want := []string{"k1", "k1", "k2", "k3"}; !slices.Equal(s.called(), want) {
		t.Errorf("steps ran for %v, want %v (each record its own, none without a key)", s.called(), want)
	}
	for id, want := range map[string]struct {
		op    idem.Op
		cause error
	}{"m2": {idem.OpRun, nil}, "m3": {idem.OpRun, handler.ErrPanic}, "m4": {handler.OpKey, idem.ErrNoKey}} {
		f := failures[id]
		if f == nil || f.Op != want.op || (want.cause != nil && !errors.Is(f, want.cause)) {
			t.Errorf("%s: failure %v, want op %s and %v", id, f, want.op, want.cause)
		}
	}
	if f := failures["m2"]; f == nil || f.Key != "k2" {
		t.Errorf("m2's failure names key %q, want the key as read, k2", f.Key)
	}
	b.WantSummary(map[string]int{"records": 5, "dispatched": 2, "failed": 3, "executed": 0, "batch_item_failures": 3})
}

// On a FIFO queue a step handler keeps the handler's order: after a
// failure no later record of the batch starts (ErrFIFOBlocked).
func TestStepHandlerFIFO(t *testing.T) {
	t.Parallel()
	b := handlerbundle.New(t)
	s := &steps{fail: map[string]bool{"k2": true}}
	h := must(handler.NewStepHandler(readKey(t), s.step, handler.WithLogger(b.Logger())))
	got := b.Invoke(h, handlerbundle.FIFOMsg("m1", "k1", "a"), handlerbundle.FIFOMsg("m2", "k2", "a"), handlerbundle.FIFOMsg("m3", "k3", "a"))
	handlerbundle.WantIDs(t, got, "m2", "m3")
	if want := []string{"k1", "k2"}; !slices.Equal(s.called(), want) {
		t.Errorf("steps ran for %v, want %v", s.called(), want)
	}
	b.WantSummary(map[string]int{"dispatched": 1, "failed": 1, "skipped": 1})
}

// NewStepHandler refuses what it cannot use, naming it: a nil key reader
// or step, and every setting only a claim uses.
func TestNewStepHandlerRefuses(t *testing.T) {
	t.Parallel()
	s := &steps{}
	key := readKey(t)
	for _, tc := range []struct {
		field string
		key   handler.KeyFunc
		step  handler.StepFunc
		opts  []handler.Option
	}{
		{"key", nil, s.step, nil},
		{"step", key, nil, nil},
		{"Concurrency", key, s.step, []handler.Option{handler.WithConcurrency(0)}},
		{"Request.KeyField", key, s.step, []handler.Option{handler.WithKeyField("id")}},
		{"Request.KeyFields", key, s.step, []handler.Option{handler.WithKeyFields("a", "b")}},
		{"Request.KeyAttribute", key, s.step, []handler.Option{handler.WithKeyAttribute("k")}},
		{"Request.KeyFunc", key, s.step, []handler.Option{handler.WithKeyFunc(key)}},
		{"Keyless", key, s.step, []handler.Option{handler.WithKeyless()}},
		{"Request.FingerprintFields", key, s.step, []handler.Option{handler.WithFingerprintFields("a")}},
		{"Request.NoFingerprint", key, s.step, []handler.Option{handler.WithoutFingerprint()}},
		{"Idem", key, s.step, []handler.Option{handler.WithIdem(idem.WithExpiry(idem.DefaultExpiry))}},
		{"OnReplay", key, s.step, []handler.Option{handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { return nil })}},
		{"CacheEntries", key, s.step, []handler.Option{handler.WithCache(1, 1)}},
		{"QueueURL", key, s.step, []handler.Option{handler.WithQueueURL("https://sqs.eu-west-1.amazonaws.com/1/q")}},
		{"EMF", key, s.step, []handler.Option{handler.WithEMF(io.Discard, "ns")}},
	} {
		_, err := handler.NewStepHandler(tc.key, tc.step, tc.opts...)
		var ce *idem.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: err = %v, want a ConfigError naming it", tc.field, err)
		}
	}
	quiet := handler.WithLogger(slog.New(slog.DiscardHandler))
	if _, err := handler.NewStepHandler(key, s.step, quiet, handler.WithConcurrency(3), handler.WithDeadlineReserve(0),
		handler.WithFIFOGroupIsolation(), handler.WithoutBatchError(), handler.WithNamespace("dispatch"),
		handler.WithFailureHook(func(context.Context, events.SQSMessage, error) {})); err != nil {
		t.Errorf("the batch's options: %v", err)
	}
	if _, err := handler.NewStepHandler(key, s.step, quiet); err != nil {
		t.Errorf("no namespace: %v, want none needed", err)
	}
}
