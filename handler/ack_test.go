package handler_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
)

// settleFaults is a store whose completions fail and whose releases can be
// applied with their answer lost, the client's retry then seeing the new
// state (as the AWS SDK's and go-redis's retries do).
type settleFaults struct {
	idem.Store
	completeErr  error // every Complete fails with it, applying nothing
	loseRelease  bool  // a Release is applied, then retried
	mu           sync.Mutex
	releases     int
	releaseFirst error // what the first, lost, attempt returned
}

func (s *settleFaults) Complete(ctx context.Context, c idem.Completion) error {
	if s.completeErr != nil {
		return s.completeErr
	}
	return s.Store.Complete(ctx, c)
}

func (s *settleFaults) Release(ctx context.Context, key idem.Key, owner string) error {
	s.mu.Lock()
	s.releases++
	s.mu.Unlock()
	if !s.loseRelease {
		return s.Store.Release(ctx, key, owner)
	}
	s.releaseFirst = s.Store.Release(ctx, key, owner) // applied; its answer is lost
	return s.Store.Release(ctx, key, owner)           // the retry finds nothing
}

// A message is acknowledged only on proof that its key is settled: a
// completion that failed for any reason but another owner holding the key
// leaves the message to come back, whatever the release after it says.
func TestAckOnlyOnProof(t *testing.T) {
	t.Parallel()
	cancelled := errors.New("TransactionCanceledException: ConditionalCheckFailed on a staged write")
	for _, tc := range []struct {
		name        string
		completeErr error
		loseRelease bool
		released    bool // the claim is freed, so a redelivery runs at once
	}{
		{"completion fails, release answered", cancelled, false, true},
		// The release is applied, its answer lost; the retry finds the
		// record gone and says ErrLeaseLost. The completion's failure is
		// not a lost lease: the message must come back.
		{"completion fails, release's answer lost", cancelled, true, true},
		// A bare ErrLeaseLost says nothing of who holds the key, and
		// "gone" is not "another owner": the record may have expired. Only
		// a refusal naming another owner acks.
		{"completion refused, holder unknown", idem.ErrLeaseLost, false, false},
		{"completion refused, record gone", &idem.LeaseLostError{Owner: "x"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			store := &settleFaults{Store: b.store, completeErr: tc.completeErr, loseRelease: tc.loseRelease}
			handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, nil), handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k1")), "m1", "m2")
			if err := b.Failure("m1"); err.Op != "complete" {
				t.Errorf("m1 failed at %q (%v), want complete", err.Op, err)
			}
			if tc.loseRelease && store.releaseFirst != nil {
				t.Fatalf("the lost release was not applied: %v", store.releaseFirst)
			}
			if !tc.released {
				return // the claim is left to its lease
			}
			// The key is free again: the redelivery runs the work.
			store.completeErr = nil
			handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, nil), handlerbundle.Msg("m1", "k1")))
			if rec, ok := idemtest.MustGet(t, b.store, key("k1")); !ok || rec.Status != idem.StatusCompleted {
				t.Errorf("after the redelivery: %+v, %v; want COMPLETED", rec, ok)
			}
			if n := b.CallCount("m1"); n != 2 {
				t.Errorf("m1 ran %d times, want 2 (once unstored, once stored)", n)
			}
		})
	}
}

// A completion refused because another claim owns the key acknowledges
// only when that claim has completed the key. One still in progress may
// yet fail, so the message comes back: it replays that claim's result,
// waits for it, or runs the work again.
func TestSuperseded(t *testing.T) {
	t.Parallel()
	for _, completed := range []bool{false, true} {
		t.Run(fmt.Sprintf("holder completed %v", completed), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			start := time.Now().Truncate(time.Millisecond)
			clock := newFakeClock(start)
			h := b.wrap(func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
				// The lease passes while the work runs; another worker
				// takes over (and, maybe, completes).
				clock.Advance(2 * time.Minute)
				now := clock.Now()
				c, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key("k1"), Owner: "other", Now: now,
					LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour)})
				if err != nil || !c.Claimed {
					t.Errorf("take-over: %+v, %v", c, err)
				}
				if completed {
					if err := b.store.Complete(ctx, idem.Completion{Key: key("k1"), Owner: "other", Result: []byte("theirs"), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
						t.Error(err)
					}
				}
				return []byte("ours"), nil
			}, handler.WithIdem(func(c *idem.Config) { c.Clock = clock }, idem.WithLease(time.Minute)))
			got := b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k1"))
			rec, _ := idemtest.MustGet(t, b.store, key("k1"))
			if rec.Owner != "other" {
				t.Errorf("record %+v, want the other owner's, untouched", rec)
			}
			if !completed {
				handlerbundle.WantIDs(t, got, "m1", "m2")
				if err := b.Failure("m1"); !errors.Is(err, idem.ErrLeaseLost) {
					t.Errorf("m1: %v, want idem.ErrLeaseLost", err)
				}
				return
			}
			handlerbundle.WantIDs(t, got)
			if got := b.Replays()["m2"]; got != "ours" {
				t.Errorf("the copy was replayed %q, want the fresh result", got)
			}
			b.WantSummary(map[string]int{"executed": 1, "replayed": 1, "superseded": 1})
		})
	}
}

// deadlineSpy records the deadline each completion was sent under.
type deadlineSpy struct {
	idem.Store
	mu       sync.Mutex
	deadline time.Time
}

func (s *deadlineSpy) Complete(ctx context.Context, c idem.Completion) error {
	s.mu.Lock()
	s.deadline, _ = ctx.Deadline()
	s.mu.Unlock()
	return s.Store.Complete(ctx, c)
}

// A record's claim is settled inside the deadline reserve: after the
// records' own deadline, before the invocation's, with a quarter of the
// reserve left to answer Lambda.
func TestSettleInsideTheReserve(t *testing.T) {
	t.Parallel()
	b := setup(t)
	spy := &deadlineSpy{Store: b.store}
	h := b.WrapStore(spy, nil, func(c *handler.Config) { c.DeadlineReserve = 8 * time.Second })
	deadline := time.Now().Add(time.Minute)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if _, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{handlerbundle.Msg("m1", "k1")}}); err != nil {
		t.Fatal(err)
	}
	if want := deadline.Add(-2 * time.Second); !spy.deadline.Equal(want) {
		t.Errorf("completed under deadline %s, want %s (the invocation's less a quarter of the reserve)", spy.deadline, want)
	}
}
