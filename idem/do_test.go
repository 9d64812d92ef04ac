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
)

// setup is one test's store and a clock it moves by hand.
type setup struct {
	store *memstore.Store
	now   atomic.Pointer[time.Time]
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	s := &setup{store: must(memstore.New())}
	t0 := time.Now().Truncate(time.Second)
	s.now.Store(&t0)
	return s
}

func (s *setup) Now() time.Time { return *s.now.Load() }

func (s *setup) advance(d time.Duration) {
	t := s.Now().Add(d)
	s.now.Store(&t)
}

func (s *setup) do(ctx context.Context, key idem.Key, fp string, fn idem.Func, opts ...idem.Option) (idem.Result, error) {
	return idem.Do(ctx, s.store, key, fp, fn, append([]idem.Option{func(c *idem.Config) { c.Clock = s }}, opts...)...)
}

func answer(v string) idem.Func {
	return func(context.Context) ([]byte, error) { return []byte(v), nil }
}

func TestDoInProgressIsAnOutcome(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) {
			close(inside)
			<-release
			return []byte("first"), nil
		}, idem.WithLease(time.Minute))
		done <- err
	}()
	<-inside
	r, err := s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) {
		t.Error("ran while the key was held")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.InProgress || r.Value != nil {
		t.Fatalf("got %+v, %v; want InProgress with no value", r, err)
	}
	// The holder's lease as stored (its lease plus the clock-skew bound)
	// plus the bound again: when a claim here may take the key over.
	if want := s.Now().Add(time.Minute + 2*idem.DefaultClockSkew); !r.LeaseUntil.Equal(want) {
		t.Fatalf("lease until %s, want %s", r.LeaseUntil, want)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestDoTakesOverAfterTheLease(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	// A worker claimed and crashed: its record stays IN_PROGRESS.
	_, err := s.store.Claim(context.Background(), idem.ClaimRequest{
		Key: "k#crash", Owner: "dead", Now: s.Now(), LeaseUntil: s.Now().Add(time.Minute), ExpiresAt: s.Now().Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := s.do(context.Background(), "k#crash", "", answer("x")); r.Outcome != idem.InProgress {
		t.Fatalf("before the lease passed: %s, want in progress", r.Outcome)
	}
	// The lease is judged at now less the clock-skew bound: a lease that
	// passed by less than the bound on this clock still holds.
	s.advance(time.Minute + idem.DefaultClockSkew)
	if r, _ := s.do(context.Background(), "k#crash", "", answer("x")); r.Outcome != idem.InProgress {
		t.Fatalf("the lease passed by the clock-skew bound: %s, want in progress", r.Outcome)
	}
	s.advance(time.Millisecond)
	r, err := s.do(context.Background(), "k#crash", "", answer("x"))
	if err != nil || r.Outcome != idem.Executed || !r.TookOver {
		t.Fatalf("after the lease: %+v, %v; want executed with a take-over", r, err)
	}
}

func TestDoLeaseFromTheDeadline(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	ctx, cancel := context.WithDeadline(context.Background(), s.Now().Add(30*time.Second))
	defer cancel()
	_, err := s.do(ctx, "k#lease", "", func(context.Context) ([]byte, error) {
		rec, _ := idemtest.MustGet(t, s.store, "k#lease")
		if want := s.Now().Add(30*time.Second + idem.DefaultLeaseMargin + idem.DefaultClockSkew); !rec.LeaseUntil.Equal(want) {
			t.Errorf("lease until %s, want the deadline plus the margin, %s", rec.LeaseUntil, want)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.do(context.Background(), "k#nodeadline", "", func(context.Context) ([]byte, error) {
		rec, _ := idemtest.MustGet(t, s.store, "k#nodeadline")
		if want := s.Now().Add(idem.DefaultLease + idem.DefaultClockSkew); !rec.LeaseUntil.Equal(want) {
			t.Errorf("lease until %s, want DefaultLease, %s", rec.LeaseUntil, want)
		}
		return nil, nil
	})
}

func TestDoPanicReleasesAndRepanics(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v, want the work's panic", p)
			}
		}()
		_, _ = s.do(context.Background(), "k#panic", "", func(context.Context) ([]byte, error) { panic("boom") })
	}()
	if _, ok := idemtest.MustGet(t, s.store, "k#panic"); ok {
		t.Fatal("the claim of a panicking work was not released")
	}
	if r, err := s.do(context.Background(), "k#panic", "", answer("ok")); err != nil || r.Outcome != idem.Executed {
		t.Fatalf("retry after the panic: %+v, %v", r, err)
	}
}

func TestDoReleasesWhenTheContextIsCancelled(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := s.do(ctx, "k#cancel", "", func(ctx context.Context) ([]byte, error) {
		cancel()
		return nil, ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if _, ok := idemtest.MustGet(t, s.store, "k#cancel"); ok {
		t.Fatal("the claim was not released after the caller's context ended")
	}
}

// A result too large to store settles the key all the same: the work ran
// once, and a second call replays the marker rather than running it again.
func TestDoResultTooLarge(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	s.store = must(memstore.New(memstore.WithMaxResultBytes(8)))
	var calls, written atomic.Int32
	work := func(ctx context.Context) ([]byte, error) {
		calls.Add(1)
		return []byte("nine byte"), idem.Stage(ctx, memstore.Write(func(*memstore.Tx) error { written.Add(1); return nil }))
	}
	r, err := s.do(context.Background(), "k#big", "fp", work)
	if !errors.Is(err, idem.ErrResultTooLarge) {
		t.Fatalf("err %v, want idem.ErrResultTooLarge", err)
	}
	var ie *idem.Error
	if !errors.As(err, &ie) || ie.Key != "k#big" || ie.Op != "complete" {
		t.Fatalf("err %#v, want an *idem.Error naming the key and the complete step", err)
	}
	if r.Outcome != idem.Executed || !r.Omitted || string(r.Value) != "nine byte" {
		t.Fatalf("result %+v: want executed, omitted, with the fresh result", r)
	}
	rec, ok := idemtest.MustGet(t, s.store, "k#big")
	if !ok || rec.Status != idem.StatusCompleted || rec.OmittedBytes != 9 || rec.Result != nil {
		t.Fatalf("record %+v, %v; want COMPLETED without the result, OmittedBytes 9", rec, ok)
	}
	if written.Load() != 1 {
		t.Fatalf("the staged write ran %d times, want once, with the completion", written.Load())
	}

	r, err = s.do(context.Background(), "k#big", "fp", work)
	if err != nil || r.Outcome != idem.Replayed || !r.Omitted || r.Value != nil {
		t.Fatalf("second call: %+v, %v; want replayed, omitted, no value", r, err)
	}
	if calls.Load() != 1 || written.Load() != 1 {
		t.Fatalf("the work ran %d times and its write %d, want once each", calls.Load(), written.Load())
	}
}

// omitFails is a memstore whose completions without a result fail with err.
type omitFails struct {
	*memstore.Store
	err error
}

func (s omitFails) Complete(ctx context.Context, c idem.Completion) error {
	if c.OmittedBytes > 0 {
		return s.err
	}
	return s.Store.Complete(ctx, c)
}

// When the key cannot be settled without the result either, Do does as
// for any result not stored: it releases a claim it still owns.
func TestDoResultTooLargeNotSettled(t *testing.T) {
	t.Parallel()
	down := errors.New("store down")
	for _, c := range []struct {
		name     string
		err      error
		released bool
		outcome  idem.Outcome
	}{
		{"store error", down, true, idem.NotStored},
		{"record gone", &idem.LeaseLostError{Owner: "me"}, false, idem.NotStored},
		{"another owner", &idem.LeaseLostError{Status: idem.StatusInProgress, Holder: "other", Owner: "me"}, false, idem.Superseded},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mem := must(memstore.New(memstore.WithMaxResultBytes(1)))
			r, err := idem.Do(context.Background(), omitFails{mem, c.err}, "k#big", "", answer("big"))
			if !errors.Is(err, idem.ErrResultTooLarge) || !errors.Is(err, c.err) {
				t.Fatalf("err %v, want idem.ErrResultTooLarge and %v", err, c.err)
			}
			if r.Outcome != c.outcome || r.Omitted || string(r.Value) != "big" {
				t.Fatalf("result %+v: want %v with the fresh result, not omitted", r, c.outcome)
			}
			if _, held := idemtest.MustGet(t, mem, "k#big"); held == c.released {
				t.Fatalf("record kept: %v, want %v", held, !c.released)
			}
		})
	}
}

func TestDoStagedWrites(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	var written atomic.Int32
	_, err := s.do(context.Background(), "k#tx", "", func(ctx context.Context) ([]byte, error) {
		if err := idem.Stage(ctx, memstore.Write(func(*memstore.Tx) error { written.Add(1); return nil })); err != nil {
			return nil, err
		}
		if written.Load() != 0 {
			t.Error("a staged write ran before completion")
		}
		return []byte("r"), nil
	})
	if err != nil || written.Load() != 1 {
		t.Fatalf("err %v, %d writes; want the staged write committed once", err, written.Load())
	}
	_, err = s.do(context.Background(), "k#tx2", "", func(ctx context.Context) ([]byte, error) {
		return []byte("r"), idem.Stage(ctx, "not a memstore write")
	})
	if !errors.Is(err, idem.ErrUnsupportedWrite) {
		t.Fatalf("err %v, want idem.ErrUnsupportedWrite", err)
	}
	if _, ok := idemtest.MustGet(t, s.store, "k#tx2"); ok {
		t.Fatal("the claim was kept after an unsupported write")
	}
	if err := idem.Stage(context.Background(), memstore.Write(func(*memstore.Tx) error { return nil })); err == nil {
		t.Fatal("Stage outside Do succeeded")
	}
}

func TestDoHeartbeatExtendsTheLease(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	first := s.Now().Add(time.Second)
	_, err := s.do(context.Background(), "k#hb", "", func(ctx context.Context) ([]byte, error) {
		s.advance(time.Hour)
		for {
			rec, _ := idemtest.MustGet(t, s.store, "k#hb")
			if rec.LeaseUntil.After(first) {
				return []byte("done"), nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}, idem.WithLease(time.Second), idem.WithHeartbeat(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
}

func TestDoHeartbeatStopsWorkWhoseLeaseIsLost(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	r, err := s.do(context.Background(), "k#lost", "", func(ctx context.Context) ([]byte, error) {
		// Another worker takes the key over once the lease has passed.
		c, err := s.store.Claim(context.Background(), idem.ClaimRequest{
			Key: "k#lost", Owner: "thief", Now: s.Now().Add(2 * time.Second),
			LeaseUntil: s.Now().Add(time.Hour), ExpiresAt: s.Now().Add(time.Hour),
		})
		if err != nil || !c.Claimed {
			t.Errorf("take-over: %+v, %v", c, err)
		}
		<-ctx.Done()
		return []byte("late"), nil
	}, idem.WithLease(time.Second), idem.WithHeartbeat(time.Millisecond))
	if !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("result %+v, err %v; want idem.ErrLeaseLost", r, err)
	}
	if rec, _ := idemtest.MustGet(t, s.store, "k#lost"); rec.Owner != "thief" || rec.Status != idem.StatusInProgress {
		t.Fatalf("the new owner's record was touched: %+v", rec)
	}
}

func TestDoWiringErrors(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	if _, err := s.do(context.Background(), "", "", answer("x")); !errors.Is(err, idem.ErrNoKey) {
		t.Fatalf("empty key: err %v, want idem.ErrNoKey", err)
	}
	for _, c := range []struct {
		field string
		call  func() error
	}{
		{"store", func() error { _, err := idem.Do(context.Background(), nil, "k", "", answer("x")); return err }},
		{"fn", func() error { _, err := idem.Do(context.Background(), s.store, "k", "", nil); return err }},
		{"Heartbeat", func() error {
			_, err := idem.Do(context.Background(), s.store, "k", "", answer("x"), idem.WithLease(time.Minute), idem.WithHeartbeat(time.Minute))
			return err
		}},
		{"options[0]", func() error { _, err := idem.Do(context.Background(), s.store, "k", "", answer("x"), nil); return err }},
	} {
		err := c.call()
		bad, ok := errors.AsType[*idem.ConfigError](err)
		if !ok || bad.Package != "idem" || bad.Field != c.field {
			t.Errorf("%s: err %v, want an *idem.ConfigError naming it", c.field, err)
		}
		if e, ok := errors.AsType[*idem.Error](err); !ok || e.Op != "claim" {
			t.Errorf("%s: err %v, want an *idem.Error for op claim", c.field, err)
		}
	}
	if _, ok := idemtest.MustGet(t, s.store, "k"); ok {
		t.Error("a call with a bad setting wrote a record")
	}
}
