package dynamostore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// DynamoDB's claim condition decides as idem.Record.Claimable does, at the
// edges of its units: expiry in whole seconds rounded up, lease in whole
// milliseconds.
func TestClaimAgreesWithClaimable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ms := time.Millisecond
	cases := []struct {
		name      string
		completed bool
		lease     time.Duration // from b.now; 0: no lease
		expiry    time.Duration // from b.now
		at        time.Duration // the second claim, from b.now
	}{
		{"lease not passed", false, 5 * time.Second, time.Hour, 4 * time.Second},
		{"lease at its millisecond", false, 5*time.Second + 500*time.Microsecond, time.Hour, 5*time.Second + 900*time.Microsecond},
		{"lease passed by a millisecond", false, 5 * time.Second, time.Hour, 5*time.Second + ms},
		{"no lease is held until expiry", false, 0, time.Hour, 30 * time.Minute},
		{"no lease, expired", false, 0, 10 * time.Second, 11 * time.Second},
		{"in progress, expired before its lease", false, time.Hour, 10 * time.Second, 11 * time.Second},
		{"completed, lease long passed", true, time.Second, time.Hour, 59 * time.Minute},
		{"completed, expiry rounds up", true, time.Second, 10*time.Second + ms, 11*time.Second + 999*ms},
		{"completed, expiry second ends", true, time.Second, 10*time.Second + ms, 12 * time.Second},
		{"completed, at its expiry second", true, time.Second, 10 * time.Second, 10*time.Second + 999*ms},
		{"completed, expired", true, time.Second, 10 * time.Second, 11 * time.Second},
	}
	for i, c := range cases {
		key := idem.Key(fmt.Sprintf("edge#%d", i))
		rec := idem.Record{Key: key, Status: idem.StatusInProgress, ExpiresAt: b.now.Add(c.expiry), Owner: storekit.NewOwner()}
		if c.lease > 0 {
			rec.LeaseUntil = b.now.Add(c.lease)
		}
		ctx := context.Background()
		first, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: rec.Owner, Now: b.now, LeaseUntil: rec.LeaseUntil, ExpiresAt: rec.ExpiresAt})
		if err != nil || !first.Claimed {
			t.Fatalf("%s: first claim %+v, %v", c.name, first, err)
		}
		if c.completed {
			if err := b.store.Complete(ctx, idem.Completion{Key: key, Owner: rec.Owner, Result: []byte("r"), ExpiresAt: rec.ExpiresAt}); err != nil {
				t.Fatalf("%s: complete: %v", c.name, err)
			}
			rec.Status, rec.LeaseUntil = idem.StatusCompleted, time.Time{}
		}
		now := b.now.Add(c.at)
		second, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: storekit.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
		if err != nil {
			t.Fatalf("%s: second claim: %v", c.name, err)
		}
		if got, want := second.Claimed, rec.Claimable(now); got != want {
			t.Errorf("%s: DynamoDB says claimable=%v (%s), idem.Record.Claimable says %v", c.name, got, second, want)
		}
	}
}
