package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/storekit"
)

// DeleteExpired deletes expired records only, at most limit at a time.
func TestDeleteExpired(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	claim := func(key idem.Key, expires time.Time) {
		t.Helper()
		c, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: storekit.NewOwner(), Now: b.now, LeaseUntil: b.now.Add(time.Second), ExpiresAt: expires})
		if err != nil || !c.Claimed {
			t.Fatalf("claim %q: %+v, %v", key, c, err)
		}
	}
	for i := range 5 {
		claim(idem.Key(fmt.Sprintf("t#old%d", i)), b.now.Add(time.Duration(i+1)*time.Second))
	}
	claim("t#live", b.now.Add(time.Hour))
	claim("t#edge", b.now.Add(time.Minute)) // expires exactly at the cleanup's now: kept

	later := b.now.Add(time.Minute)
	n, err := b.store.DeleteExpired(ctx, later, 3)
	if err != nil || n != 3 {
		t.Fatalf("first batch: %d, %v; want 3", n, err)
	}
	n, err = b.store.DeleteExpired(ctx, later, 3)
	if err != nil || n != 2 {
		t.Fatalf("second batch: %d, %v; want the 2 left", n, err)
	}
	for _, key := range []idem.Key{"t#live", "t#edge"} {
		if _, ok := idemtest.MustGet(t, b.store, key); !ok {
			t.Fatalf("%s was deleted before it expired", key)
		}
	}
	if _, ok := idemtest.MustGet(t, b.store, "t#old4"); ok {
		t.Fatal("t#old4 survived")
	}
}
