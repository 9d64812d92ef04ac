package idemtest

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Request is a claim of key by owner at now, with a one-minute lease and
// a one-hour expiry.
func Request(key idem.Key, owner string, now time.Time) idem.ClaimRequest {
	return idem.ClaimRequest{Key: key, Owner: owner, Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}
}

// MustClaim claims key at now for a fresh owner (Request), fails the test
// unless the key is claimed, and returns the owner.
func MustClaim(t testing.TB, s idem.Store, key idem.Key, now time.Time) string {
	t.Helper()
	owner := storekit.NewOwner()
	c, err := s.Claim(context.Background(), Request(key, owner, now))
	if err != nil || !c.Claimed {
		t.Fatalf("claim %q: %+v, %v; want claimed", key, c, err)
	}
	return owner
}

// Getter reads a record as stored; the stores' Get methods have this
// shape.
type Getter interface {
	Get(ctx context.Context, key idem.Key) (idem.Record, bool, error)
}

// MustGet reads the record of key, failing the test on an error.
func MustGet(t testing.TB, g Getter, key idem.Key) (idem.Record, bool) {
	t.Helper()
	rec, ok, err := g.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return rec, ok
}
