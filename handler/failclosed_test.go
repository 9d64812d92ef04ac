package handler_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/request"
)

// A function that ends its goroutine with runtime.Goexit (as t.FailNow
// does) never returns: its record, and every record its goroutine would
// have run next, must come back.
func TestGoexitFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		fifo        bool
		concurrency int
	}{
		{"standard, one at a time", false, 1},
		{"standard, default concurrency", false, 0},
		{"FIFO, one at a time", true, 1},
		{"FIFO, default concurrency", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			exitOn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
				if m.MessageId == "m1" {
					runtime.Goexit()
				}
				return []byte("ok"), nil
			}
			var opts []handler.Option
			if tc.concurrency > 0 {
				opts = append(opts, handler.WithConcurrency(tc.concurrency))
			}
			h := b.wrap(exitOn, opts...)
			var msgs []events.SQSMessage
			for _, id := range []string{"m1", "m2", "m3"} {
				m := handlerbundle.Msg(id, "k"+id[1:])
				if tc.fifo {
					m = handlerbundle.FIFOMsg(id, "k"+id[1:], "g1")
				}
				msgs = append(msgs, m)
			}
			msgs = append(msgs, handlerbundle.Msg("m4", "k1")) // a copy of the exited record's key
			if tc.fifo {
				msgs[3] = handlerbundle.FIFOMsg("m4", "k1", "g2")
			}
			got := b.Invoke(h, msgs...)

			if err := b.Failure("m1"); !errors.Is(err, handler.ErrNoOutcome) {
				t.Errorf("m1: failure %v, want ErrNoOutcome", err)
			}
			if !contains(got, "m1") || !contains(got, "m4") {
				t.Errorf("reported %v: the exited record and its copy must come back", got)
			}
			// Records that ran and succeeded may be acknowledged; records
			// that did not run must come back.
			for _, id := range []string{"m2", "m3"} {
				if b.CallCount(id) == 0 && !contains(got, id) {
					t.Errorf("%s never ran and was acknowledged (reported %v)", id, got)
				}
			}
			if tc.fifo && (!contains(got, "m2") || !contains(got, "m3")) {
				t.Errorf("FIFO: reported %v, want every record after m1", got)
			}
			if tc.concurrency == 1 && !tc.fifo && (b.CallCount("m2") != 0 || !contains(got, "m2")) {
				t.Errorf("one at a time: m2 ran %d times, reported %v: the exited goroutine's next records must come back", b.CallCount("m2"), got)
			}
			// An exit is taken for a crash: the claim is left to its lease,
			// never completed, so a delivery after the lease runs the work.
			if rec, ok := idemtest.MustGet(t, b.store, key("k1")); !ok || rec.Status != idem.StatusInProgress {
				t.Errorf("the exited record's claim: %+v (found %v), want it in progress until its lease passes", rec, ok)
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Hooks are the user's code too: a panic in one fails the record (replay
// hook) or is logged (failure hook), and never acknowledges a record.
func TestPanickingHooksFailClosed(t *testing.T) {
	t.Parallel()
	t.Run("replay hook", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("m1", "k1")))
		h := must(handler.New(b.store, func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil },
			handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}),
			handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { panic("hook") }),
			handler.WithFailureHook(func(_ context.Context, m events.SQSMessage, err error) {
				if !errors.Is(err, handler.ErrPanic) {
					t.Errorf("%s: failure %v, want ErrPanic", m.MessageId, err)
				}
			})))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m2", "k1"), handlerbundle.Msg("m3", "k1")), "m2", "m3")
	})
	t.Run("failure hook", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := must(handler.New(b.store, handlerbundle.FailOn("m1"), handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithLogger(b.Logger()),
			handler.WithFailureHook(func(context.Context, events.SQSMessage, error) { panic("hook") })))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")), "m1")
		if len(b.Logged("idemq: panic in failure hook")) != 1 {
			t.Error("the failure hook's panic was not logged")
		}
	})
}

// Settings that cannot be safe are refused when the handler is wired,
// with an error naming them; New panics with that error.
func TestUnsafeSettingsAreRefused(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }
	for _, tc := range []struct {
		name       string
		opts       []handler.Option
		pkg, field string
		want       string
	}{
		{"heartbeat at the lease", []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithIdem(idem.WithLease(time.Minute), idem.WithHeartbeat(time.Minute))},
			"idem", "Heartbeat", "idem: Heartbeat 1m0s: must be at most half of Lease 1m0s"},
		{"heartbeat over half the lease", []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithIdem(idem.WithLease(time.Minute), idem.WithHeartbeat(31*time.Second))},
			"idem", "Heartbeat", "idem: Heartbeat 31s: must be at most half"},
		{"negative lease", []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithIdem(idem.WithLease(-time.Second))},
			"idem", "Lease", "idem: Lease -1s: must not be negative"},
		{"nil option", []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), nil}, "handler", "options[1]", "handler: options[1]: is nil"},
		{"nil idem option", []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithIdem(idem.WithLease(time.Minute), nil)}, "handler", "options[1]", "handler: options[1]: is nil"},
		{"negative concurrency", []handler.Option{handler.WithConcurrency(-2)}, "handler", "Concurrency", `handler: Concurrency -2: must not be negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := handler.New(newStore(), fn, tc.opts...)
			bad, ok := errors.AsType[*idem.ConfigError](err)
			if !ok || bad.Package != tc.pkg || bad.Field != tc.field || h != nil {
				t.Fatalf("New: err %v; want no handler and an *idem.ConfigError naming %s's %s", err, tc.pkg, tc.field)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one containing %q", err, tc.want)
			}
			defer func() {
				if p, _ := recover().(error); p == nil || p.Error() != err.Error() {
					t.Errorf("New: panic %v, want New's error %v", p, err)
				}
			}()
			must(handler.New(newStore(), fn, tc.opts...))
		})
	}
}
