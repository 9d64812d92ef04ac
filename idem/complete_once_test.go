package idem_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/idemq/idemq/idem"
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

// A completion that fails, even with an error that may be transient, is
// sent once: retrying it is the store's client's job (one retryer per
// call), so Do's attempts never multiply the client's. Do releases the
// claim, once, and answers NotStored with the fresh value; the next
// delivery runs the work again. Whether the failed completion was applied
// with its answer lost or refused, nothing is settled that the caller is
// told is.
func TestDoSendsACompletionOnce(t *testing.T) {
	t.Parallel()
	for _, lost := range []bool{false, true} {
		t.Run(fmt.Sprintf("lost=%v", lost), func(t *testing.T) {
			t.Parallel()
			down := fmt.Errorf("redisstore: %w", io.EOF) // Retryable: a lost connection
			s := &flakyComplete{Store: must(memstore.New()), fails: 1 << 20, lost: lost, err: down}
			r, err := idem.Do(context.Background(), s, "k#down", "", answer("done"))
			if !errors.Is(err, down) || r.Outcome != idem.NotStored || string(r.Value) != "done" {
				t.Fatalf("got %+v, %v; want NotStored with the fresh value and %v", r, err, down)
			}
			if n := s.completes.Load(); n != 1 {
				t.Fatalf("%d completions sent, want 1: the store's client owns the retries", n)
			}
			if n := s.releases.Load(); n != 1 {
				t.Fatalf("%d releases sent, want 1", n)
			}
			again, err := idem.Do(context.Background(), s.Store, "k#down", "", answer("again"))
			want := idem.Executed // released: the work runs again
			if lost {
				want = idem.Replayed // applied with its answer lost: the next delivery replays it
			}
			if err != nil || again.Outcome != want {
				t.Fatalf("next delivery: %+v, %v; want %v", again, err, want)
			}
		})
	}
}

// A result too large to store is followed by one completion without it,
// which is sent once too: two completions in all, then one release.
func TestDoSendsTheCompletionWithoutTheResultOnce(t *testing.T) {
	t.Parallel()
	mem := must(memstore.New(memstore.WithMaxResultBytes(1)))
	s := &flakyOmit{Store: mem, fails: 1 << 20}
	releases := &countReleases{Store: s}
	r, err := idem.Do(context.Background(), releases, "k#big", "", answer("big"))
	if !errors.Is(err, idem.ErrResultTooLarge) || r.Outcome != idem.NotStored || r.Omitted {
		t.Fatalf("got %+v, %v; want NotStored with idem.ErrResultTooLarge", r, err)
	}
	if s.all != 2 || s.omitted != 1 {
		t.Fatalf("%d completions sent (%d without the result), want 2 (1)", s.all, s.omitted)
	}
	if releases.n != 1 {
		t.Fatalf("%d releases sent, want 1", releases.n)
	}
}

// A completion the store answers at once is sent once, and not followed
// by a release, whatever it answers.
func TestDoDoesNotResendADefinitiveCompletion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		err     error
		outcome idem.Outcome
	}{
		{"lease lost", &idem.LeaseLostError{Owner: "me"}, idem.NotStored},
		{"superseded", &idem.LeaseLostError{Status: idem.StatusCompleted, Holder: "other", Owner: "me"}, idem.Superseded},
		{"unsupported write", fmt.Errorf("%w: a %T", idem.ErrUnsupportedWrite, 1), idem.NotStored},
		{"permanent", idem.Permanent(errors.New("table of another shape")), idem.NotStored},
		{"context ended", fmt.Errorf("redisstore: %w", context.DeadlineExceeded), idem.NotStored},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &flakyComplete{Store: must(memstore.New()), fails: 1 << 20, err: c.err}
			r, err := idem.Do(context.Background(), s, "k#final", "", answer("done"))
			if !errors.Is(err, c.err) || r.Outcome != c.outcome {
				t.Fatalf("got %+v, %v; want %v and %v", r, err, c.outcome, c.err)
			}
			if n := s.completes.Load(); n != 1 {
				t.Fatalf("%d completions sent, want 1", n)
			}
		})
	}
}

// flakyOmit is a memstore whose first fails completions without a result
// are refused. It counts every completion, and those without a result.
type flakyOmit struct {
	*memstore.Store
	fails, omitted, all int
}

func (s *flakyOmit) Complete(ctx context.Context, c idem.Completion) error {
	s.all++
	if c.OmittedBytes > 0 {
		if s.omitted++; s.omitted <= s.fails {
			return errors.New("connection reset")
		}
	}
	return s.Store.Complete(ctx, c)
}

// countReleases counts the releases sent to a store.
type countReleases struct {
	idem.Store
	n int
}

func (s *countReleases) Release(ctx context.Context, key idem.Key, owner string) error {
	s.n++
	return s.Store.Release(ctx, key, owner)
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
		{&idem.Error{Op: idem.OpComplete, Key: "k", Err: &idem.LeaseLostError{Status: idem.StatusCompleted, Holder: "a", Owner: "b"}}, false},
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
