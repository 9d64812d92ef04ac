package idem_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
)

// flakyComplete is a memstore whose first fails completions fail with err:
// applied with the answer lost (lost set), or refused before reaching the
// store. It counts the completions and releases sent.
type flakyComplete struct {
	*memstore.Store
	fails     int
	lost      bool
	err       error
	completes atomic.Int32
	releases  atomic.Int32
}

func (s *flakyComplete) Complete(ctx context.Context, c idem.Completion) error {
	if int(s.completes.Add(1)) > s.fails {
		return s.Store.Complete(ctx, c)
	}
	if s.lost {
		if err := s.Store.Complete(ctx, c); err != nil {
			return err
		}
	}
	return s.err
}

func (s *flakyComplete) Release(ctx context.Context, key idem.Key, owner string) error {
	s.releases.Add(1)
	return s.Store.Release(ctx, key, owner)
}

// pauses is a Clock whose Sleep returns at once, noting each pause.
type pauses struct {
	waits []time.Duration
}

func (p *pauses) Now() time.Time { return time.Now() }

func (p *pauses) Sleep(ctx context.Context, d time.Duration) error {
	p.waits = append(p.waits, d)
	return ctx.Err()
}

// A completion that fails with an error that may be transient is sent
// again: Do stores the result (once, with its staged write), answers
// Executed and releases nothing, whether the failed attempts were applied
// with their answers lost or refused.
func TestDoRetriesATransientCompletion(t *testing.T) {
	t.Parallel()
	for _, lost := range []bool{true, false} {
		for _, fails := range []int{1, 3} {
			t.Run(fmt.Sprintf("lost=%v,fails=%d", lost, fails), func(t *testing.T) {
				t.Parallel()
				s := &flakyComplete{Store: must(memstore.New()), fails: fails, lost: lost, err: fmt.Errorf("redisstore: %w", io.EOF)}
				clock := &pauses{}
				var written atomic.Int32
				r, err := idem.Do(context.Background(), s, "k#flaky", "", func(ctx context.Context) ([]byte, error) {
					return []byte("done"), idem.Stage(ctx, memstore.Write(func(*memstore.Tx) error { written.Add(1); return nil }))
				}, idem.WithClock(clock))
				if err != nil || r.Outcome != idem.Executed || string(r.Value) != "done" {
					t.Fatalf("got %+v, %v; want executed", r, err)
				}
				if n := s.completes.Load(); int(n) != fails+1 {
					t.Fatalf("%d completions sent, want %d", n, fails+1)
				}
				if n := s.releases.Load(); n != 0 {
					t.Fatalf("%d releases sent, want none", n)
				}
				rec, ok := idemtest.MustGet(t, s.Store, "k#flaky")
				if !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != "done" {
					t.Fatalf("record %+v, %v; want COMPLETED with the result", rec, ok)
				}
				if written.Load() != 1 {
					t.Fatalf("the staged write ran %d times, want once", written.Load())
				}
				if len(clock.waits) != fails {
					t.Fatalf("%d pauses, want %d", len(clock.waits), fails)
				}
				for i, w := range clock.waits {
					if w < 25*time.Millisecond || w > 200*time.Millisecond {
						t.Fatalf("pause %d is %s, want 25 ms to 200 ms", i, w)
					}
				}
				again, err := idem.Do(context.Background(), s, "k#flaky", "", func(context.Context) ([]byte, error) {
					t.Error("the work ran again")
					return nil, nil
				})
				if err != nil || again.Outcome != idem.Replayed || string(again.Value) != "done" {
					t.Fatalf("next delivery: %+v, %v; want the stored result replayed", again, err)
				}
			})
		}
	}
}

// A completion still failing after its attempts, or when the settle
// deadline leaves no room for a pause, is not stored: Do releases the
// claim, as before, and the next delivery runs the work again.
func TestDoGivesUpOnACompletion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		ctx       func() context.Context
		completes int32
	}{
		{"every attempt refused", context.Background, 4},
		{"past the settle deadline", func() context.Context {
			// A pause takes 25 ms at least: none fits.
			return idem.WithSettleDeadline(context.Background(), time.Now().Add(5*time.Millisecond))
		}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			down := errors.New("connection reset")
			s := &flakyComplete{Store: must(memstore.New()), fails: 1 << 20, err: down}
			r, err := idem.Do(c.ctx(), s, "k#down", "", answer("done"), idem.WithClock(&pauses{}))
			if !errors.Is(err, down) || r.Outcome != idem.NotStored || string(r.Value) != "done" {
				t.Fatalf("got %+v, %v; want NotStored with the fresh value and %v", r, err, down)
			}
			if n := s.completes.Load(); n != c.completes {
				t.Fatalf("%d completions sent, want %d", n, c.completes)
			}
			if n := s.releases.Load(); n != 1 {
				t.Fatalf("%d releases sent, want 1", n)
			}
		})
	}
}

// A definitive answer is not sent again.
func TestDoDoesNotRetryADefinitiveCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		err     error
		outcome idem.Outcome
	}{
		{"lease lost", idem.LeaseLost("", "", "me"), idem.NotStored},
		{"superseded", idem.LeaseLost(idem.StatusCompleted, "other", "me"), idem.Superseded},
		{"unsupported write", fmt.Errorf("%w: a %T", idem.ErrUnsupportedWrite, 1), idem.NotStored},
		{"permanent", idem.Permanent(errors.New("table of another shape")), idem.NotStored},
		{"context ended", fmt.Errorf("redisstore: %w", context.DeadlineExceeded), idem.NotStored},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &flakyComplete{Store: must(memstore.New()), fails: 1 << 20, err: c.err}
			clock := &pauses{}
			r, err := idem.Do(context.Background(), s, "k#final", "", answer("done"), idem.WithClock(clock))
			if !errors.Is(err, c.err) || r.Outcome != c.outcome {
				t.Fatalf("got %+v, %v; want %v and %v", r, err, c.outcome, c.err)
			}
			if n := s.completes.Load(); n != 1 || len(clock.waits) != 0 {
				t.Fatalf("%d completions sent after %d pauses, want 1 and none", n, len(clock.waits))
			}
		})
	}
}

// The completion without a too-large result is sent again the same way.
func TestDoRetriesTheCompletionWithoutTheResult(t *testing.T) {
	t.Parallel()
	mem := must(memstore.New(memstore.WithMaxResultBytes(1)))
	s := &flakyOmit{Store: mem, fails: 2}
	r, err := idem.Do(context.Background(), s, "k#big", "", answer("big"), idem.WithClock(&pauses{}))
	if !errors.Is(err, idem.ErrResultTooLarge) || r.Outcome != idem.Executed || !r.Omitted {
		t.Fatalf("got %+v, %v; want executed, omitted, with idem.ErrResultTooLarge", r, err)
	}
	if s.omitted != 3 {
		t.Fatalf("%d completions without the result, want 3", s.omitted)
	}
	rec, ok := idemtest.MustGet(t, mem, "k#big")
	if !ok || rec.Status != idem.StatusCompleted || rec.OmittedBytes != 3 {
		t.Fatalf("record %+v, %v; want COMPLETED without the result", rec, ok)
	}
}

// flakyOmit is a memstore whose first fails completions without a result
// are refused.
type flakyOmit struct {
	*memstore.Store
	fails, omitted int
}

func (s *flakyOmit) Complete(ctx context.Context, c idem.Completion) error {
	if c.OmittedBytes > 0 {
		if s.omitted++; s.omitted <= s.fails {
			return errors.New("connection reset")
		}
	}
	return s.Store.Complete(ctx, c)
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	base := errors.New("i/o timeout")
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{base, true},
		{&idem.Error{Op: idem.OpComplete, Key: "k", Err: fmt.Errorf("redisstore: %w", io.EOF)}, true},
		{context.Canceled, false},
		{fmt.Errorf("dynamostore: %w", context.DeadlineExceeded), false},
		{&idem.Error{Op: idem.OpComplete, Key: "k", Err: idem.LeaseLost(idem.StatusCompleted, "a", "b")}, false},
		{fmt.Errorf("%w: 9 bytes", idem.ErrResultTooLarge), false},
		{idem.ErrUnsupportedWrite, false},
		{idem.ErrNoKey, false},
		{idem.ErrPayloadMismatch, false},
		{idem.Permanent(base), false},
		{&idem.Error{Op: idem.OpComplete, Key: "k", Err: fmt.Errorf("pgstore: %w", idem.Permanent(base))}, false},
	} {
		if got := idem.Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	p := idem.Permanent(base)
	if p.Error() != base.Error() || !errors.Is(p, base) {
		t.Errorf("Permanent(%v) = %v: want the same message and chain", base, p)
	}
	if idem.Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
}
