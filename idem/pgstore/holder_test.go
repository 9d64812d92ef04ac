package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

// A fenced write that loses a race with a take-over is refused, and its
// refusal names the owner that took the key over, so that idem.Do reports
// the execution superseded (and acknowledges it once that owner has
// completed). Under READ COMMITTED the write waits for the take-over's
// row lock and then finds the row changed; what the statement reads of
// the row must be that new version, not its snapshot from before the
// take-over, which names the writer itself.
func TestRefusalAfterATakeOverNamesTheNewOwner(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	const rounds = 150
	writes := map[string]func(key idem.Key, owner string) error{
		"complete": func(key idem.Key, owner string) error {
			return b.store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte("late"), ExpiresAt: b.now.Add(time.Hour)})
		},
		"release": func(key idem.Key, owner string) error { return b.store.Release(ctx, key, owner) },
		"extend": func(key idem.Key, owner string) error {
			return b.store.Extend(ctx, idem.Extension{Key: key, Owner: owner, LeaseUntil: b.now.Add(time.Hour), ExpiresAt: b.now.Add(2 * time.Hour)})
		},
	}
	for name, write := range writes {
		refused, wrong := 0, 0
		for round := range rounds {
			key := idem.Key(fmt.Sprintf("t#%s%d", name, round))
			first := idem.NewOwner()
			// A claim whose lease has passed by the time the others race.
			if c, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: first, Now: b.now, LeaseUntil: b.now.Add(time.Second), ExpiresAt: b.now.Add(time.Hour)}); err != nil || !c.Claimed {
				t.Fatal(c, err)
			}
			second := idem.NewOwner()
			later := b.now.Add(time.Minute)
			var claim idem.Claim
			var claimErr, writeErr error
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-start
				claim, claimErr = b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: second, Now: later, LeaseUntil: later.Add(time.Minute), ExpiresAt: later.Add(time.Hour)})
			})
			wg.Go(func() {
				<-start
				// Behind the claim by up to half a millisecond: the
				// write's snapshot is taken while the claim runs.
				for spin := time.Now().Add(time.Duration(round%6) * 100 * time.Microsecond); time.Now().Before(spin); {
				}
				writeErr = write(key, first)
			})
			close(start)
			wg.Wait()
			if claimErr != nil {
				t.Fatal(claimErr)
			}
			if !claim.Claimed || writeErr == nil {
				continue // the write went first: nothing to take over, or nothing refused
			}
			refused++
			lost, ok := errors.AsType[*idem.LeaseLostError](writeErr)
			if !ok || lost.Holder != second || lost.Status != idem.StatusInProgress || !lost.Superseded() {
				wrong++
				t.Errorf("%s %d: refused with %v (%+v), want it to name the owner that took the key over, %s", name, round, writeErr, lost, second)
			}
		}
		t.Logf("%s: %d of %d refused after the take-over, %d naming the wrong owner", name, refused, rounds, wrong)
	}
}
