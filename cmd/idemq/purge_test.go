package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

func TestPurgeCompleted(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.complete(t, "done", []byte(`{"name":"ab12/o","size":9000,"sha256":"00"}`), storekit.EncodingBlob, time.Hour)
		r := b.run(t, strings.NewReader("y\n"), "purge", "done")
		if r.code != exitOK {
			t.Fatalf("purge answered y: exit %d", r.code)
		}
		for _, want := range []string{"runs the work again", "lifecycle rule", "[y/N]", "purged"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("purge of a COMPLETED record does not say %q", want)
			}
		}
		b.wantGone(t, "purge", "done")

		owner := b.complete(t, "kept", []byte("r"), storekit.EncodingRaw, time.Hour)
		if r := b.run(t, strings.NewReader("N\n"), "purge", "kept"); r.code != exitFailed {
			t.Errorf("purge answered N: exit %d", r.code)
		}
		b.wantUnchanged(t, "a purge answered N", "kept", owner, idem.StatusCompleted)
	})
}

func TestPurgeInProgress(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		owner := b.claim(t, "running", b.now, time.Hour)
		if r := b.run(t, nil, "purge", "running", "--yes"); r.code != exitFailed || !strings.Contains(r.stderr, "--force") {
			t.Errorf("purge of a live lease without --force: exit %d, want %d", r.code, exitFailed)
		}
		b.wantUnchanged(t, "a refused purge", "running", owner, idem.StatusInProgress)
		if r := b.run(t, nil, "purge", "running", "--yes", "--force", "--json"); r.code != exitOK || !strings.Contains(r.stdout, `"action":"purge"`) {
			t.Errorf("purge --force --yes --json: exit %d", r.code)
		}
		b.wantGone(t, "purge --force", "running")

		b.claim(t, "stopped", b.now.Add(-5*time.Minute), time.Minute)
		if r := b.run(t, nil, "purge", "stopped", "--yes"); r.code != exitOK {
			t.Errorf("purge of a passed lease: exit %d", r.code)
		}
		b.wantGone(t, "purge of a passed lease", "stopped")
	})
}

// A COMPLETED record that expires and is claimed again between the
// command's read and its delete is left to its new owner.
func TestPurgeFencedByTheClaimAfterTheRead(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		owner := b.claim(t, "done", b.now, time.Minute)
		expiry := b.now.Add(30 * time.Second)
		if err := b.store.Complete(context.Background(), idem.Completion{Key: key("done"), Owner: owner, Result: []byte("r"), ExpiresAt: expiry}); err != nil {
			t.Fatal(err)
		}
		var again string
		r := b.run(t, &answer{text: "y\n", before: func() {
			// Claimed as if after the expiry (the store judges at the
			// time it is given).
			again = storekit.NewOwner()
			at := expiry.Add(2 * time.Second)
			c, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: key("done"), Owner: again, Now: at, LeaseUntil: at.Add(time.Hour), ExpiresAt: at.Add(time.Hour)})
			if err != nil || !c.Claimed {
				t.Errorf("claim after expiry: %+v, %v", c, err)
			}
		}}, "purge", "done")
		if r.code != exitChanged || !strings.Contains(r.stderr, again) {
			t.Errorf("purge of a record claimed again after the read: exit %d, want %d naming the new owner", r.code, exitChanged)
		}
		b.wantUnchanged(t, "a fenced purge", "done", again, idem.StatusInProgress)
	})
}
