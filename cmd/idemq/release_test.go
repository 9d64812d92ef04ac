package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// wantUnchanged checks that the record of k is still owner's, status.
func (b *bundle) wantUnchanged(t *testing.T, what, k, owner string, status idem.Status) {
	t.Helper()
	rec, ok := b.get(t, k)
	if !ok || rec.Owner != owner || rec.Status != status {
		t.Errorf("%s changed the record: %+v (found %v), want %s owned by %s", what, rec, ok, status, owner)
	}
}

func (b *bundle) wantGone(t *testing.T, what, k string) {
	t.Helper()
	if rec, ok := b.get(t, k); ok {
		t.Errorf("%s left the record: %+v", what, rec)
	}
}

func TestReleaseRefusesALiveLease(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		owner := b.claim(t, "running", b.now, time.Hour)
		r := b.run(t, strings.NewReader("y\n"), "release", "running")
		if r.code != exitFailed || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "second provider call") {
			t.Errorf("release of a live lease without --force: exit %d, want %d refused saying what a forced release means", r.code, exitFailed)
		}
		b.wantUnchanged(t, "a refused release", "running", owner, idem.StatusInProgress)

		// A claim without a lease is held until it expires: as live.
		owner = b.claim(t, "held", b.now, 0)
		if r := b.run(t, nil, "release", "held", "--yes"); r.code != exitFailed {
			t.Errorf("release of a claim without a lease, without --force: exit %d, want %d", r.code, exitFailed)
		}
		b.wantUnchanged(t, "a refused release", "held", owner, idem.StatusInProgress)
	})
}

func TestReleaseForce(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "running", b.now, time.Hour)
		r := b.run(t, strings.NewReader("y\n"), "release", "running", "--force")
		if r.code != exitOK {
			t.Fatalf("release --force answered y: exit %d", r.code)
		}
		for _, want := range []string{"lease lost", "result is dropped", "second provider call", "[y/N]", "released"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("release --force does not say %q", want)
			}
		}
		b.wantGone(t, "release --force", "running")
	})
}

func TestReleaseAnsweredNo(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		owner := b.claim(t, "stopped", b.now.Add(-10*time.Minute), time.Minute) // its lease passed; its record lives 50 min more (Redis deletes a key at its expiry)
		for _, in := range []string{"n\n", "\n", "", "yes please\n"} {
			r := b.run(t, strings.NewReader(in), "release", "stopped", "--force")
			if r.code != exitFailed || !strings.Contains(r.stdout, "nothing changed") {
				t.Errorf("release answered %q: exit %d, want %d and nothing changed", in, r.code, exitFailed)
			}
			b.wantUnchanged(t, "a release answered "+strings.TrimSpace(in), "stopped", owner, idem.StatusInProgress)
		}
	})
}

func TestReleaseStuck(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "stopped", b.now.Add(-5*time.Minute), time.Minute)
		r := b.run(t, nil, "release", "stopped", "--yes")
		if r.code != exitOK || strings.Contains(r.stdout, "[y/N]") {
			t.Fatalf("release --yes of a passed lease: exit %d, or it asked", r.code)
		}
		b.wantGone(t, "release of a passed lease", "stopped")
		// The next delivery claims it afresh.
		c, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: key("stopped"), Owner: storekit.NewOwner(), Now: b.now, LeaseUntil: b.now.Add(time.Minute), ExpiresAt: b.now.Add(time.Hour)})
		if err != nil || !c.Claimed || c.Previous != nil {
			t.Errorf("claim after release: %+v, %v; want a fresh claim", c, err)
		}

		owner := b.complete(t, "done", []byte("r"), storekit.EncodingRaw, time.Hour)
		if r := b.run(t, nil, "release", "done", "--yes", "--force"); r.code != exitFailed || !strings.Contains(r.stderr, "purge") {
			t.Errorf("release of a COMPLETED record: exit %d, want %d pointing to purge", r.code, exitFailed)
		}
		b.wantUnchanged(t, "release of a COMPLETED record", "done", owner, idem.StatusCompleted)
		if r := b.run(t, nil, "release", "absent", "--yes"); r.code != exitFailed {
			t.Errorf("release of an absent key: exit %d", r.code)
		}
	})
}

// A record claimed again between the command's read and its delete (here:
// while it asks) is left to its new owner, and the command says so.
func TestReleaseFencedByTheClaimAfterTheRead(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "stopped", b.now.Add(-5*time.Minute), time.Minute)
		var again string
		r := b.run(t, &answer{text: "y\n", before: func() {
			again = b.claim(t, "stopped", time.Now(), time.Hour) // the next delivery takes the key over
		}}, "release", "stopped")
		if r.code != exitChanged || !strings.Contains(r.stderr, "changed") || !strings.Contains(r.stderr, again) {
			t.Errorf("release of a record claimed again after the read: exit %d, want %d naming the new owner", r.code, exitChanged)
		}
		b.wantUnchanged(t, "a fenced release", "stopped", again, idem.StatusInProgress)
	})
}
