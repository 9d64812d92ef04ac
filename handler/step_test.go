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
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
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

func (s *steps) step(_ context.Context, _ events.SQSMessage, id request.ID) error {
	key := id.Value
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

// reader reads the default Identity in the namespace "dispatch", as a
// dispatcher given it does.
func reader() *request.Reader {
	return must(request.NewReader(request.Identity{Namespace: "dispatch"}))
}

// A step handler answers with the handler's decision: a record whose step
// returned nil is acknowledged and counted dispatched; one whose step
// failed or panicked (ErrPanic), or whose key cannot be read (its step not
// run, op "key"), comes back, each with a RecordError naming the record
// key a handler given the same Identity claims. The step gets the request
// as read, and copies of a key each run their own step.
func TestStepHandler(t *testing.T) {
	t.Parallel()
	b := handlerbundle.New(t)
	s := &steps{fail: map[string]bool{"k2": true}, panics: map[string]bool{"k3": true}}
	failures := map[string]*handler.RecordError{}
	h := must(handler.NewStepHandler(reader(), s.step, handler.WithLogger(b.Logger()),
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
	if f := failures["m2"]; f == nil || f.Key != "dispatch#k2" {
		t.Errorf("m2's failure names key %v, want the record key dispatch#k2", f)
	}
	b.WantSummary(map[string]int{"records": 5, "dispatched": 2, "failed": 3, "executed": 0, "batch_item_failures": 3})
}

// On a FIFO queue a step handler keeps the handler's order: after a
// failure no later record of the batch starts (ErrFIFOBlocked).
func TestStepHandlerFIFO(t *testing.T) {
	t.Parallel()
	b := handlerbundle.New(t)
	s := &steps{fail: map[string]bool{"k2": true}}
	h := must(handler.NewStepHandler(reader(), s.step, handler.WithLogger(b.Logger())))
	got := b.Invoke(h, handlerbundle.FIFOMsg("m1", "k1", "a"), handlerbundle.FIFOMsg("m2", "k2", "a"), handlerbundle.FIFOMsg("m3", "k3", "a"))
	handlerbundle.WantIDs(t, got, "m2", "m3")
	if want := []string{"k1", "k2"}; !slices.Equal(s.called(), want) {
		t.Errorf("steps ran for %v, want %v", s.called(), want)
	}
	b.WantSummary(map[string]int{"dispatched": 1, "failed": 1, "skipped": 1})
}

// NewStepHandler refuses what it cannot use, naming it: a nil reader or
// step, a Request setting (the reader's), and every setting only a claim
// uses.
func TestNewStepHandlerRefuses(t *testing.T) {
	t.Parallel()
	s := &steps{}
	r := reader()
	for _, tc := range []struct {
		field string
		r     *request.Reader
		step  handler.StepFunc
		opts  []handler.Option
	}{
		{"reader", nil, s.step, nil},
		{"step", r, nil, nil},
		{"Concurrency", r, s.step, []handler.Option{handler.WithConcurrency(-1)}},
		{"Request", r, s.step, []handler.Option{handler.WithRequest(request.Identity{KeyField: "id"})}},
		{"Request", r, s.step, []handler.Option{handler.WithRequest(request.Identity{Namespace: "other"})}},
		{"Request", r, s.step, []handler.Option{handler.WithRequest(request.Identity{NoFingerprint: true})}},
		{"Keyless", r, s.step, []handler.Option{handler.WithKeyless()}},
		{"Idem", r, s.step, []handler.Option{handler.WithIdem(idem.WithExpiry(idem.DefaultExpiry))}},
		{"OnReplay", r, s.step, []handler.Option{handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { return nil })}},
		{"CacheEntries", r, s.step, []handler.Option{func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 1, 1 }}},
		{"QueueURL", r, s.step, []handler.Option{func(c *handler.Config) { c.QueueURL = "https://sqs.eu-west-1.amazonaws.com/1/q" }}},
		{"EMF", r, s.step, []handler.Option{handler.WithEMF(io.Discard, "ns")}},
	} {
		_, err := handler.NewStepHandler(tc.r, tc.step, tc.opts...)
		var ce *idem.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: err = %v, want a ConfigError naming it", tc.field, err)
		}
	}
	quiet := handler.WithLogger(slog.New(slog.DiscardHandler))
	if _, err := handler.NewStepHandler(r, s.step, quiet, handler.WithConcurrency(3), func(c *handler.Config) { c.DeadlineReserve = -1 },
		func(c *handler.Config) { c.FIFOGroupIsolation = true }, func(c *handler.Config) { c.NoBatchError = true },
		handler.WithFailureHook(func(context.Context, events.SQSMessage, error) {})); err != nil {
		t.Errorf("the batch's options: %v", err)
	}
	if _, err := handler.NewStepHandler(must(request.NewReader(request.Identity{})), s.step, quiet); err != nil {
		t.Errorf("a reader without a namespace: %v, want the handler's default", err)
	}
}
