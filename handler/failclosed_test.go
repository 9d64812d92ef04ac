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
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
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
				m := msg(id, "k"+id[1:])
				if tc.fifo {
					m = fifoMsg(id, "k"+id[1:], "g1")
				}
				msgs = append(msgs, m)
			}
			msgs = append(msgs, msg("m4", "k1")) // a copy of the exited record's key
			if tc.fifo {
				msgs[3] = fifoMsg("m4", "k1", "g2")
			}
			got := b.invoke(h, msgs...)

			if err := b.failure("m1"); !errors.Is(err, handler.ErrNoOutcome) {
				t.Errorf("m1: failure %v, want ErrNoOutcome", err)
			}
			if !contains(got, "m1") || !contains(got, "m4") {
				t.Errorf("reported %v: the exited record and its copy must come back", got)
			}
			// Records that ran and succeeded may be acknowledged; records
			// that did not run must come back.
			for _, id := range []string{"m2", "m3"} {
				if b.callCount(id) == 0 && !contains(got, id) {
					t.Errorf("%s never ran and was acknowledged (reported %v)", id, got)
				}
			}
			if tc.fifo && (!contains(got, "m2") || !contains(got, "m3")) {
				t.Errorf("FIFO: reported %v, want every record after m1", got)
			}
			if tc.concurrency == 1 && !tc.fifo && (b.callCount("m2") != 0 || !contains(got, "m2")) {
				t.Errorf("one at a time: m2 ran %d times, reported %v: the exited goroutine's next records must come back", b.callCount("m2"), got)
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
		wantIDs(t, b.invoke(b.wrap(nil), msg("m1", "k1")))
		h := handler.WrapSQS(b.store, func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil },
			handler.WithNamespace(ns),
			handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { panic("hook") }),
			handler.WithFailureHook(func(_ context.Context, m events.SQSMessage, err error) {
				if !errors.Is(err, handler.ErrPanic) {
					t.Errorf("%s: failure %v, want ErrPanic", m.MessageId, err)
				}
			}))
		wantIDs(t, b.invoke(h, msg("m2", "k1"), msg("m3", "k1")), "m2", "m3")
	})
	t.Run("failure hook", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := handler.WrapSQS(b.store, failOn("m1"), handler.WithNamespace(ns), handler.WithLogger(b.logger()),
			handler.WithFailureHook(func(context.Context, events.SQSMessage, error) { panic("hook") }))
		wantIDs(t, b.invoke(h, msg("m1", "k1"), msg("m2", "k2")), "m1")
		if len(b.logged("idemq: panic in failure hook")) != 1 {
			t.Error("the failure hook's panic was not logged")
		}
	})
}

// Settings that cannot be safe are refused when the handler is wired,
// with a message naming them.
func TestUnsafeSettingsPanic(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		wrap func()
		want string
	}{
		{"heartbeat at the lease", func() {
			handler.WrapSQS(newStore(), fn, handler.WithNamespace(ns), handler.WithIdem(idem.WithLease(time.Minute), idem.WithHeartbeat(time.Minute)))
		}, "idem: Heartbeat 1m0s is more than half of Lease 1m0s"},
		{"heartbeat over half the lease", func() {
			handler.WrapSQS(newStore(), fn, handler.WithNamespace(ns), handler.WithIdem(idem.WithLease(time.Minute), idem.WithHeartbeat(31*time.Second)))
		}, "idem: Heartbeat 31s is more than half"},
		{"negative lease", func() {
			handler.WrapSQS(newStore(), fn, handler.WithNamespace(ns), handler.WithIdem(idem.WithLease(-time.Second)))
		}, "idem: Lease -1s is negative"},
		{"nil option", func() { handler.WrapSQS(newStore(), fn, handler.WithNamespace(ns), nil) }, "handler: option 1 is nil"},
		{"nil idem option", func() { handler.WrapSQS(newStore(), fn, handler.WithIdem(nil)) }, "idem: option 0 is nil"},
		{"empty namespace", func() { handler.WithNamespace("") }, "handler: empty namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, tc.want) {
					t.Fatalf("panic %v, want one containing %q", p, tc.want)
				}
			}()
			tc.wrap()
		})
	}
}
