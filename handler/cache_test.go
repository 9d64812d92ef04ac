package handler_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

func TestCacheSavesTheStoreRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &countingStore{Store: b.store}
	h := b.wrapStore(store, nil, handler.WithCache(100, 1<<20))

	wantIDs(t, b.invoke(h, msg("m1", "k1")))
	if n := store.claimCount(); n != 1 {
		t.Fatalf("%d claims for the first delivery, want 1", n)
	}
	// A warm duplicate: replayed from the cache, no store request.
	wantIDs(t, b.invoke(h, msg("m2", "k1")))
	if n := store.claimCount(); n != 1 {
		t.Errorf("%d claims after a cached duplicate, want still 1", n)
	}
	if got, _ := b.replayed("m2"); got != "result:m1" {
		t.Errorf("replay hook got %q, want result:m1", got)
	}
	b.wantSummary(map[string]int{"replayed": 1, "cache_hits": 1})

	// The fingerprint is still checked on a cache hit.
	other := msg("m3", "k1")
	other.Body = `{"idempotency_key":"k1","prompt":"another"}`
	wantIDs(t, b.invoke(h, other), "m3")
	if err := b.failure("m3"); !errors.Is(err, idem.ErrPayloadMismatch) {
		t.Errorf("failure = %v, want ErrPayloadMismatch", err)
	}
	if n := store.claimCount(); n != 1 {
		t.Errorf("%d claims, want still 1", n)
	}
}

func TestCacheKeepsReplaysFromTheStore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Another container completed k1.
	wantIDs(t, b.invoke(b.wrap(nil), msg("m1", "k1")))

	store := &countingStore{Store: b.store}
	h := b.wrapStore(store, nil, handler.WithCache(100, 1<<20))
	wantIDs(t, b.invoke(h, msg("m2", "k1"))) // from the store
	wantIDs(t, b.invoke(h, msg("m3", "k1"))) // from the cache
	if n := store.claimCount(); n != 1 {
		t.Errorf("%d claims, want 1", n)
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &countingStore{Store: b.store}
	h := b.wrapStore(store, failOn("m1"), handler.WithCache(100, 1<<20))
	wantIDs(t, b.invoke(h, msg("m1", "k1")), "m1")
	wantIDs(t, b.invoke(h, msg("m2", "k1")))
	if b.callCount("m2") != 1 || store.claimCount() != 2 {
		t.Errorf("calls %v, claims %d: the retry did not claim and run", b.calls, store.claimCount())
	}
}
