package handler_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
)

func TestCacheSavesTheStoreRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &countingStore{Store: b.store}
	h := b.WrapStore(store, nil, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 1<<20 })

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
	if n := store.claimCount(); n != 1 {
		t.Fatalf("%d claims for the first delivery, want 1", n)
	}
	// A warm duplicate: replayed from the cache, no store request.
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m2", "k1")))
	if n := store.claimCount(); n != 1 {
		t.Errorf("%d claims after a cached duplicate, want still 1", n)
	}
	if got, _ := b.Replayed("m2"); got != "result:m1" {
		t.Errorf("replay hook got %q, want result:m1", got)
	}
	b.WantSummary(map[string]int{"replayed": 1, "cache_hits": 1})

	// The fingerprint is still checked on a cache hit.
	other := handlerbundle.Msg("m3", "k1")
	other.Body = `{"idempotency_key":"k1","prompt":"another"}`
	handlerbundle.WantIDs(t, b.Invoke(h, other), "m3")
	if err := b.Failure("m3"); !errors.Is(err, idem.ErrPayloadMismatch) {
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
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("m1", "k1")))

	store := &countingStore{Store: b.store}
	h := b.WrapStore(store, nil, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 1<<20 })
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m2", "k1"))) // from the store
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m3", "k1"))) // from the cache
	if n := store.claimCount(); n != 1 {
		t.Errorf("%d claims, want 1", n)
	}
}

func TestCacheDoesNotKeepFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &countingStore{Store: b.store}
	h := b.WrapStore(store, handlerbundle.FailOn("m1"), func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 1<<20 })
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")), "m1")
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m2", "k1")))
	if b.CallCount("m2") != 1 || store.claimCount() != 2 {
		t.Errorf("calls %v, claims %d: the retry did not claim and run", b.Calls(), store.claimCount())
	}
}
