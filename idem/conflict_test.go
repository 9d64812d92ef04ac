package idem_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
)

// conflicting is a memstore whose requests of the ops in refuse are
// refused, not applied, with ErrWriteConflict wrapped as a store wraps
// it.
type conflicting struct {
	*memstore.Store
	refuse  map[idem.Op]bool
	refused atomic.Int64
}

func (s *conflicting) conflict(op idem.Op, key idem.Key) error {
	s.refused.Add(1)
	return &idem.Error{Op: op, Key: key, Err: fmt.Errorf("%w: ReplicatedWriteConflictException: the item is being modified in another Region", idem.ErrWriteConflict)}
}

func (s *conflicting) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if s.refuse[idem.OpClaim] {
		return idem.Claim{}, s.conflict(idem.OpClaim, req.Key)
	}
	return s.Store.Claim(ctx, req)
}

func (s *conflicting) Complete(ctx context.Context, c idem.Completion) error {
	if s.refuse[idem.OpComplete] {
		return s.conflict(idem.OpComplete, c.Key)
	}
	return s.Store.Complete(ctx, c)
}

func (s *conflicting) Release(ctx context.Context, key idem.Key, owner string) error {
	if s.refuse[idem.OpRelease] {
		return s.conflict(idem.OpRelease, key)
	}
	return s.Store.Release(ctx, key, owner)
}

func (s *conflicting) Extend(ctx context.Context, e idem.Extension) error {
	if s.refuse[idem.OpExtend] {
		return s.conflict(idem.OpExtend, e.Key)
	}
	return s.Store.Extend(ctx, e)
}

func refusing(ops ...idem.Op) *conflicting {
	s := &conflicting{Store: must(memstore.New()), refuse: map[idem.Op]bool{}}
	for _, op := range ops {
		s.refuse[op] = true
	}
	return s
}

// A claim refused because another writer was at the key is another
// claimant: InProgress, with no lease known, and the work does not run.
func TestDoClaimConflictIsInProgress(t *testing.T) {
	t.Parallel()
	s := refusing(idem.OpClaim)
	r, err := idem.Do(context.Background(), s, "k#c", "fp", func(context.Context) ([]byte, error) {
		t.Error("the work ran on a claim refused by a conflict")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.InProgress || r.Value != nil || !r.LeaseUntil.IsZero() {
		t.Fatalf("got %+v, %v; want InProgress with no value and no lease", r, err)
	}
	if _, held := idemtest.MustGet(t, s.Store, "k#c"); held {
		t.Fatal("a refused claim left a record")
	}
}

// A completion refused by a conflict stores nothing: NotStored, the claim
// released so that a retry runs the work, and the error says why.
func TestDoCompleteConflictIsNotStored(t *testing.T) {
	t.Parallel()
	s := refusing(idem.OpComplete)
	r, err := idem.Do(context.Background(), s, "k#c", "", answer("fresh"))
	if !errors.Is(err, idem.ErrWriteConflict) || r.Outcome != idem.NotStored || string(r.Value) != "fresh" {
		t.Fatalf("got %+v, %v; want NotStored with the fresh value and idem.ErrWriteConflict", r, err)
	}
	if rec, held := idemtest.MustGet(t, s.Store, "k#c"); held {
		t.Fatalf("the claim was kept: %+v", rec)
	}
}

// A release refused by a conflict leaves the claim to its lease, and the
// work's error is returned with it.
func TestDoReleaseConflictKeepsTheClaim(t *testing.T) {
	t.Parallel()
	s := refusing(idem.OpRelease)
	failed := errors.New("provider down")
	_, err := idem.Do(context.Background(), s, "k#c", "", func(context.Context) ([]byte, error) { return nil, failed })
	if !errors.Is(err, failed) || !errors.Is(err, idem.ErrWriteConflict) {
		t.Fatalf("err %v; want the work's error and idem.ErrWriteConflict", err)
	}
	if rec, held := idemtest.MustGet(t, s.Store, "k#c"); !held || rec.Status != idem.StatusInProgress {
		t.Fatalf("record %+v (held %v); want the claim kept IN_PROGRESS", rec, held)
	}
}

// An extension refused by a conflict does not stop the work: its lease
// runs as it was, and the heartbeat goes on beating.
func TestDoExtendConflictGoesOn(t *testing.T) {
	t.Parallel()
	s := refusing(idem.OpExtend)
	r, err := idem.Do(context.Background(), s, "k#c", "", func(ctx context.Context) ([]byte, error) {
		for s.refused.Load() < 3 {
			select {
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			case <-time.After(time.Millisecond):
			}
		}
		return []byte("done"), nil
	}, idem.WithLease(time.Minute), idem.WithHeartbeat(time.Millisecond))
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("got %+v, %v; want Executed", r, err)
	}
}

func TestWriteConflictIsRetryable(t *testing.T) {
	t.Parallel()
	if err := (&idem.Error{Op: idem.OpComplete, Key: "k", Err: idem.ErrWriteConflict}); !idem.Retryable(err) {
		t.Fatalf("Retryable(%v) = false, want true: the request was not applied", err)
	}
}
