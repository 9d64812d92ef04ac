package idemtest

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

// bundle is one subtest's store and clock.
type bundle struct {
	store idem.Store
	now   time.Time
}

// base is a whole-second time near the wall clock, so records look current
// to a real database.
func base() time.Time { return time.Now().Truncate(time.Second) }

func (b *bundle) claim(t *testing.T, key idem.Key, at time.Time, lease, expiry time.Duration, fp string) (idem.Claim, string) {
	t.Helper()
	owner := idem.NewOwner()
	c, err := b.store.Claim(context.Background(), idem.ClaimRequest{
		Key: key, Owner: owner, Fingerprint: fp, Now: at,
		LeaseUntil: at.Add(lease), ExpiresAt: at.Add(expiry),
	})
	if err != nil {
		t.Fatalf("claim %q: %v", key, err)
	}
	return c, owner
}

func (b *bundle) mustClaim(t *testing.T, key idem.Key, at time.Time, lease time.Duration) string {
	t.Helper()
	c, owner := b.claim(t, key, at, lease, time.Hour, "")
	if !c.Claimed {
		t.Fatalf("claim %q at %s: state %s, want claimed", key, at, c)
	}
	return owner
}

func (b *bundle) complete(key idem.Key, owner string, result []byte, expiresAt time.Time) error {
	return b.store.Complete(context.Background(), idem.Completion{Key: key, Owner: owner, Result: result, ExpiresAt: expiresAt})
}

// The answers of a claim, as idem.Claim.String spells them.
const (
	claimed    = "claimed"
	completed  = string(idem.StatusCompleted)
	inProgress = string(idem.StatusInProgress)
)

func wantState(t *testing.T, c idem.Claim, want string) {
	t.Helper()
	if c.String() != want {
		t.Fatalf("claim state %s, want %s (record %+v)", c, want, c.Record)
	}
}

func (b *bundle) extend(key idem.Key, owner string, leaseUntil, expiresAt time.Time) error {
	return b.store.Extend(context.Background(), idem.Extension{Key: key, Owner: owner, LeaseUntil: leaseUntil, ExpiresAt: expiresAt})
}

// wantLeaseLost checks that err is a *idem.LeaseLostError that says
// whether another claim owns the record (superseded), the one lost lease
// after which idem.Do lets the message be acknowledged.
func wantLeaseLost(t *testing.T, what string, err error, superseded bool) {
	t.Helper()
	if !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("%s: err %v, want idem.ErrLeaseLost", what, err)
	}
	lost, ok := errors.AsType[*idem.LeaseLostError](err)
	if !ok {
		t.Fatalf("%s: err %v (%T) is not an *idem.LeaseLostError: idem.Do cannot tell who holds the key", what, err, err)
	}
	if lost.Superseded() != superseded {
		t.Fatalf("%s: %+v says superseded %v, want %v", what, lost, lost.Superseded(), superseded)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// testCase is one case of the suite.
type testCase struct {
	name string
	run  func(t *testing.T, b *bundle)
}
