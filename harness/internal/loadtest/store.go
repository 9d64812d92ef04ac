package loadtest

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/idemq/idemq/idem"
)

// ErrInjected is the error a FaultStore fails a request with.
var ErrInjected = errors.New("handlertest: injected store error")

// FaultStore wraps an idem.Store with the faults of a store reached over a
// network: every request takes Latency; a fraction Errors fails before it
// reaches the store (a throttle, a refused connection); a fraction
// LostAnswers reaches the store, takes effect, and fails all the same (the
// answer was lost on the way back), which is the harder case. handlertest.Failures are
// ErrInjected. Ops limits the failures to some operations ("claim",
// "complete", "release", "extend"); empty means all. The zero value of
// each field injects nothing; use a FaultStore by pointer.
//
// A failed "complete" loses a result that was paid for: idem.Do then
// releases the key and the retry runs the work again. Faulted tells which
// keys that happened to.
type FaultStore struct {
	Store       idem.Store
	Latency     time.Duration
	Errors      float64
	LostAnswers float64
	Ops         []string
	Seed        uint64

	once    sync.Once
	mu      sync.Mutex
	rng     *rand.Rand
	faulted map[idem.Key][]string
}

// Faulted returns, per key, the operations that were failed, in order.
func (s *FaultStore) Faulted() map[idem.Key][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[idem.Key][]string, len(s.faulted))
	for k, v := range s.faulted {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func (s *FaultStore) applies(op string) bool {
	if len(s.Ops) == 0 {
		return true
	}
	for _, o := range s.Ops {
		if o == op {
			return true
		}
	}
	return false
}

var _ idem.Store = (*FaultStore)(nil)

// before waits out the latency and reports whether the request fails
// before reaching the store, and whether its answer will be lost.
func (s *FaultStore) before(ctx context.Context, op string, key idem.Key) (fail, lose bool, err error) {
	s.once.Do(func() { s.rng = rand.New(rand.NewPCG(s.Seed, 1)) })
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-ctx.Done():
			return false, false, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.rng.Float64()
	if !s.applies(op) {
		return false, false, nil
	}
	fail, lose = x < s.Errors, x >= s.Errors && x < s.Errors+s.LostAnswers
	if fail || lose {
		if s.faulted == nil {
			s.faulted = map[idem.Key][]string{}
		}
		s.faulted[key] = append(s.faulted[key], op)
	}
	return fail, lose, nil
}

func (s *FaultStore) wrap(ctx context.Context, op string, key idem.Key, do func() error) error {
	fail, lose, err := s.before(ctx, op, key)
	switch {
	case err != nil:
		return err
	case fail:
		return ErrInjected
	}
	if err := do(); err != nil {
		return err
	}
	if lose {
		return ErrInjected
	}
	return nil
}

// Claim implements idem.Store.
func (s *FaultStore) Claim(ctx context.Context, r idem.ClaimRequest) (c idem.Claim, err error) {
	err = s.wrap(ctx, "claim", r.Key, func() error { c, err = s.Store.Claim(ctx, r); return err })
	if err != nil {
		return idem.Claim{}, err
	}
	return c, nil
}

// Complete implements idem.Store.
func (s *FaultStore) Complete(ctx context.Context, c idem.Completion) error {
	return s.wrap(ctx, "complete", c.Key, func() error { return s.Store.Complete(ctx, c) })
}

// Release implements idem.Store.
func (s *FaultStore) Release(ctx context.Context, k idem.Key, owner string) error {
	return s.wrap(ctx, "release", k, func() error { return s.Store.Release(ctx, k, owner) })
}

// Extend implements idem.Store.
func (s *FaultStore) Extend(ctx context.Context, e idem.Extension) error {
	return s.wrap(ctx, "extend", e.Key, func() error { return s.Store.Extend(ctx, e) })
}
