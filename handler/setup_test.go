package handler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
)

// bundle is one test's handler bundle over its own memstore.
type bundle struct {
	*handlerbundle.Bundle
	store *memstore.Store
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return &bundle{Bundle: handlerbundle.New(t), store: must(memstore.New())}
}

// wrap wraps fn (nil: returns "result:" + message id) over the bundle's
// store with its recording hooks, logger and namespace, and opts.
func (b *bundle) wrap(fn handler.Func, opts ...handler.Option) handler.Handler {
	return b.WrapStore(b.store, fn, opts...)
}

func newStore() *memstore.Store { return must(memstore.New()) }

// key is the store key the default key field value v makes.
func key(v string) idem.Key {
	k, err := idem.ClientKey(handlerbundle.Namespace, v)
	if err != nil {
		panic(err)
	}
	return k
}

// holdKey makes another worker hold key k with a lease until leaseUntil.
func holdKey(t *testing.T, s idem.Store, k idem.Key, now, leaseUntil time.Time) {
	t.Helper()
	c, err := s.Claim(context.Background(), idem.ClaimRequest{
		Key: k, Owner: storekit.NewOwner(), Now: now, LeaseUntil: leaseUntil, ExpiresAt: now.Add(time.Hour),
	})
	if err != nil || !c.Claimed {
		t.Fatalf("hold %s: %v %v", k, c, err)
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// countingStore counts Claim requests and can fail them.
type countingStore struct {
	idem.Store
	mu          sync.Mutex
	claims      int
	claimErr    error
	completeErr error
}

func (s *countingStore) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	s.mu.Lock()
	s.claims++
	err := s.claimErr
	s.mu.Unlock()
	if err != nil {
		return idem.Claim{}, err
	}
	return s.Store.Claim(ctx, req)
}

func (s *countingStore) Complete(ctx context.Context, c idem.Completion) error {
	if s.completeErr != nil {
		return s.completeErr
	}
	return s.Store.Complete(ctx, c)
}

func (s *countingStore) claimCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claims
}
