package idem_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/leasectx"
)

// An expiry shorter than the lease would let a record expire, and another
// worker claim the key, while its work still runs: refused at wiring.
func TestExpiryShorterThanLeaseIsRefused(t *testing.T) {
	t.Parallel()
	_, err := idem.NewConfig(idem.WithExpiry(time.Second), idem.WithLease(time.Minute))
	if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "idem" || bad.Field != "Expiry" {
		t.Errorf("err %v, want an *idem.ConfigError naming Expiry", err)
	}
}

// A heartbeat renews the record's expiry with its lease: work that runs
// past the expiry a claim set keeps its key.
func TestHeartbeatKeepsTheRecordAlive(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	const lease, expiry = 10 * time.Minute, 10 * time.Minute
	opts := []idem.Option{idem.WithLease(lease), idem.WithExpiry(expiry), idem.WithHeartbeat(time.Millisecond)}
	var second idem.Result
	_, err := s.do(context.Background(), "k#long", "", func(ctx context.Context) ([]byte, error) {
		// Half an hour of work, three expiries, a minute at a time; each
		// step waits for a beat at the new time.
		for range 30 {
			s.advance(time.Minute)
			want := s.Now().Add(lease)
			for {
				if rec, _ := idemtest.MustGet(t, s.store, "k#long"); !rec.LeaseUntil.Before(want) {
					break
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				time.Sleep(time.Millisecond)
			}
		}
		var err error
		second, err = s.do(ctx, "k#long", "", func(context.Context) ([]byte, error) {
			return []byte("second"), nil
		}, opts...)
		return []byte("first"), err
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if second.Outcome != idem.InProgress {
		t.Fatalf("a second call 30 minutes into the work: %v, want in progress (record %+v)", second.Outcome, mustGet(t, s.store, "k#long"))
	}
}

func mustGet(t *testing.T, s *memstore.Store, k idem.Key) idem.Record {
	t.Helper()
	rec, ok := idemtest.MustGet(t, s, k)
	if !ok {
		t.Fatalf("no record for %s", k)
	}
	return rec
}

// settleSpy records the context each completion and release was sent
// under.
type settleSpy struct {
	*memstore.Store
	completeErr error
	deadline    atomic.Pointer[time.Time]
	cancelled   atomic.Bool
}

func (s *settleSpy) saw(ctx context.Context) {
	if d, ok := ctx.Deadline(); ok {
		s.deadline.Store(&d)
	}
	s.cancelled.Store(ctx.Err() != nil)
}

func (s *settleSpy) Complete(ctx context.Context, c idem.Completion) error {
	s.saw(ctx)
	if s.completeErr != nil {
		return s.completeErr
	}
	return s.Store.Complete(ctx, c)
}

func (s *settleSpy) Release(ctx context.Context, key idem.Key, owner string) error {
	s.saw(ctx)
	return s.Store.Release(ctx, key, owner)
}

// Settling outlives the work's context, but not the settle deadline:
// leasectx.WithSettleDeadline's, else the context's own, else 30 s
// after the work.
func TestSettleDeadline(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want func(returned time.Time) (lo, hi time.Time)
	}{
		{"settle deadline", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithDeadline(context.Background(), at.Add(-time.Minute))
			return leasectx.WithSettleDeadline(ctx, at), cancel
		}, func(time.Time) (time.Time, time.Time) { return at, at }},
		{"the context's deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), at)
		}, func(time.Time) (time.Time, time.Time) { return at, at }},
		{"no deadline", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, func(r time.Time) (time.Time, time.Time) {
			return r.Add(idem.DefaultSettleTimeoutForTest), time.Now().Add(idem.DefaultSettleTimeoutForTest)
		}},
	} {
		for _, fails := range []bool{false, true} {
			name := tc.name + ", completed"
			if fails {
				name = tc.name + ", released"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				spy := &settleSpy{Store: must(memstore.New())}
				ctx, cancel := tc.ctx()
				defer cancel()
				var returned time.Time
				_, _ = idem.Do(ctx, spy, "k#settle", "", func(context.Context) ([]byte, error) {
					cancel() // the caller gives up while the work runs
					returned = time.Now()
					if fails {
						return nil, errors.New("work failed")
					}
					return []byte("done"), nil
				}, idem.WithLease(time.Minute))
				d := spy.deadline.Load()
				if d == nil {
					t.Fatal("settled without a deadline")
				}
				if lo, hi := tc.want(returned); d.Before(lo) || d.After(hi) {
					t.Errorf("settled by %s, want between %s and %s", d, lo, hi)
				}
				if spy.cancelled.Load() {
					t.Error("settled under a context cancelled with the work's")
				}
			})
		}
	}
}

// blockingExtend is a store whose extensions hang until their context
// ends, as a request to an unreachable store does.
type blockingExtend struct {
	*memstore.Store
	started chan struct{}
	once    atomic.Bool
}

func (s *blockingExtend) Extend(ctx context.Context, _ idem.Extension) error {
	if s.once.CompareAndSwap(false, true) {
		close(s.started)
	}
	<-ctx.Done()
	return ctx.Err()
}

// When the work returns, the heartbeat is cancelled before it is waited
// for: an extension under way does not hold up the completion.
func TestHeartbeatStopCancelsAnExtension(t *testing.T) {
	t.Parallel()
	store := &blockingExtend{Store: must(memstore.New()), started: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := idem.Do(context.Background(), store, "k#beat", "", func(context.Context) ([]byte, error) {
			<-store.started // an extension is under way
			return []byte("done"), nil
		}, idem.WithLease(time.Minute), idem.WithHeartbeat(time.Millisecond))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Do did not return: stopping the heartbeat waits for an extension it did not cancel")
	}
	if rec := mustGet(t, store.Store, "k#beat"); rec.Status != idem.StatusCompleted {
		t.Fatalf("record %+v, want COMPLETED", rec)
	}
}

// Settle deadlines are the system clock's, like every context's: a Config
// clock years behind does not make the completion's context end at once.
func TestSettleDeadlineIgnoresTheConfigClock(t *testing.T) {
	t.Parallel()
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	r, err := idem.Do(context.Background(), must(memstore.New()), "k#clock", "", answer("done"),
		func(c *idem.Config) { c.Clock = idem.ClockFunc(func() time.Time { return past }) })
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("Do under a clock in 2001: %v, %v; want executed", r.Outcome, err)
	}
}

// Config.DiscardResult completes the key with no result: one small write however
// large the answer, and duplicates replay an empty value without running
// the work.
func TestWithoutResult(t *testing.T) {
	t.Parallel()
	store := must(memstore.New(memstore.WithMaxResultBytes(1024)))
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	ran := 0
	work := func(context.Context) ([]byte, error) { ran++; return big, nil }
	r, err := idem.Do(context.Background(), store, "k#nores", "", work, func(c *idem.Config) { c.DiscardResult = true })
	if err != nil || r.Outcome != idem.Executed || len(r.Value) != len(big) || r.Omitted {
		t.Fatalf("first call: %v, omitted %v, %d bytes, %v; want executed with the fresh value", r.Outcome, r.Omitted, len(r.Value), err)
	}
	rec := mustGet(t, store, "k#nores")
	if rec.Status != idem.StatusCompleted || len(rec.Result) != 0 || rec.OmittedBytes != 0 {
		t.Fatalf("record %+v, want COMPLETED with no result", rec)
	}
	r, err = idem.Do(context.Background(), store, "k#nores", "", work, func(c *idem.Config) { c.DiscardResult = true })
	if err != nil || r.Outcome != idem.Replayed || len(r.Value) != 0 || ran != 1 {
		t.Fatalf("duplicate: %v, %d bytes, ran %d times, %v; want replayed, empty, ran once", r.Outcome, len(r.Value), ran, err)
	}
}
