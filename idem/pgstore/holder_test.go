package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
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
			first := storekit.NewOwner()
			// A claim whose lease has passed by the time the others race.
			if c, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: first, Now: b.now, LeaseUntil: b.now.Add(time.Second), ExpiresAt: b.now.Add(time.Hour)}); err != nil || !c.Claimed {
				t.Fatal(c, err)
			}
			second := storekit.NewOwner()
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

// A fenced write that races the owner's own claim (a claim whose answer
// the owner did not wait for, as after a timeout) is judged on the row as
// the claim left it, not as the write's snapshot had it: the claim took
// over an expired record, so the write applies, or, sent before the
// claim, is refused naming that expired record; never refused naming its
// own claim, the row it found and would not write.
func TestWriteRacingItsOwnClaimIsJudgedOnTheLatestRow(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	const rounds = 400
	writes := map[string]func(key idem.Key, owner string) error{
		"complete": func(key idem.Key, owner string) error {
			return b.store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour)})
		},
		"release": func(key idem.Key, owner string) error { return b.store.Release(ctx, key, owner) },
		"extend": func(key idem.Key, owner string) error {
			return b.store.Extend(ctx, idem.Extension{Key: key, Owner: owner, LeaseUntil: b.now.Add(time.Hour), ExpiresAt: b.now.Add(2 * time.Hour)})
		},
	}
	for name, write := range writes {
		wrong := 0
		for round := range rounds {
			key := idem.Key(fmt.Sprintf("t#own%s%d", name, round))
			// An expired record holds the key.
			if c, err := b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: storekit.NewOwner(), Now: b.now, LeaseUntil: b.now.Add(time.Second), ExpiresAt: b.now.Add(2 * time.Second)}); err != nil || !c.Claimed {
				t.Fatal(c, err)
			}
			owner := storekit.NewOwner()
			later := b.now.Add(time.Minute)
			var claimErr, writeErr error
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-start
				_, claimErr = b.store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: owner, Now: later, LeaseUntil: later.Add(time.Minute), ExpiresAt: later.Add(time.Hour)})
			})
			wg.Go(func() {
				<-start
				for spin := time.Now().Add(time.Duration(round%6) * 100 * time.Microsecond); time.Now().Before(spin); {
				}
				writeErr = write(key, owner)
			})
			close(start)
			wg.Wait()
			if claimErr != nil {
				t.Fatal(claimErr)
			}
			if lost, ok := errors.AsType[*idem.LeaseLostError](writeErr); ok && lost.Holder == owner && lost.Status == idem.StatusInProgress {
				wrong++
				t.Errorf("%s %d: refused naming its own claim, which it holds: %v", name, round, writeErr)
			}
		}
		t.Logf("%s: %d of %d refused naming their own claim", name, wrong, rounds)
	}
}
