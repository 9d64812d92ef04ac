package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// stepStore yields to the scheduler before every request, so a crash or
// another worker can come between any two, and records what the
// invariants need.
type stepStore struct {
	w  *world
	wk *worker
}

func (s *stepStore) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	// The clock must not pass the lease while the request is on its way:
	// the lease, counted from before the claim, covers the whole work.
	s.wk.lease = req.LeaseUntil
	s.wk.yield(beforeStore)
	s.wk.owner = req.Owner
	c, err := s.w.store.Claim(ctx, req)
	if err != nil || !c.Claimed {
		s.wk.lease = time.Time{}
	}
	if err == nil && c.Claimed {
		s.wk.holding = string(req.Key)
		s.w.logf("w%d claims %s (take-over %v)", s.wk.id, req.Key, c.Previous != nil)
	} else if err == nil {
		s.w.logf("w%d finds %s %s", s.wk.id, req.Key, c)
	}
	return c, err
}

// fenced records a broken invariant if a write by owner succeeded on a
// record that owner did not hold.
func (s *stepStore) fenced(op string, key idem.Key, owner string, before idem.Record, held bool, err error) {
	if err == nil && (!held || before.Owner != owner || before.Status != idem.StatusInProgress) {
		s.w.broken = fmt.Errorf("w%d's %s of %s succeeded without holding it (record %+v)", s.wk.id, op, key, before)
	}
}

func (s *stepStore) Complete(ctx context.Context, c idem.Completion) error {
	s.wk.yield(beforeStore)
	before, held := s.w.store.Get(c.Key)
	err := s.w.store.Complete(ctx, c)
	s.fenced("complete", c.Key, c.Owner, before, held, err)
	if err == nil {
		s.w.stored[string(c.Key)] = c.Owner
		s.wk.unstored, s.wk.holding = "", ""
		s.w.logf("w%d completes %s", s.wk.id, c.Key)
	}
	return err
}

func (s *stepStore) Release(ctx context.Context, key idem.Key, owner string) error {
	s.wk.yield(beforeStore)
	before, held := s.w.store.Get(key)
	err := s.w.store.Release(ctx, key, owner)
	s.fenced("release", key, owner, before, held, err)
	return err
}

func (s *stepStore) Extend(ctx context.Context, e idem.Extension) error {
	s.wk.yield(beforeStore)
	before, held := s.w.store.Get(e.Key)
	err := s.w.store.Extend(ctx, e)
	s.fenced("extend", e.Key, e.Owner, before, held, err)
	return err
}
