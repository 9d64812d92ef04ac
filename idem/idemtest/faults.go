package idemtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// LostAnswers checks what a store does when a claim's and then a
// completion's answer is lost with its connection after the server applied
// them: it must report success (Claimed; nil), not a key held until its
// lease passes, nor a failed completion that idem.Do would release.
//
// cut is a store whose next answer from the server is dropped, with its
// connection, when drop is called; direct reaches the same records
// another way, and checks that each write was applied once. A store that
// sends nothing again passes only if its client does (go-redis does).
func LostAnswers(t *testing.T, cut, direct idem.Store, drop func()) {
	t.Helper()
	ctx := context.Background()
	now := base()
	key := idem.Key("t#lost-" + storekit.NewOwner()[:8])
	owner := storekit.NewOwner()
	drop()
	c, err := cut.Claim(ctx, Request(key, owner, now))
	if err != nil || !c.Claimed {
		t.Fatalf("claim whose answer was lost: %+v, %v; want claimed", c, err)
	}
	held, err := direct.Claim(ctx, Request(key, storekit.NewOwner(), now))
	if err != nil || held.Claimed || held.Record.Owner != owner || held.Record.Status != idem.StatusInProgress {
		t.Fatalf("after the claim: %+v, %v; want the key held by %s", held, err, owner)
	}
	drop()
	if err := cut.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte("kept"), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatalf("completion whose answer was lost: %v; want nil", err)
	}
	done, err := direct.Claim(ctx, Request(key, storekit.NewOwner(), now))
	if err != nil || done.Record.Status != idem.StatusCompleted || string(done.Record.Result) != "kept" {
		t.Fatalf("after the completion: %+v, %v; want COMPLETED with the result", done, err)
	}
}

// Trips are the requests a store sent for one delivery, as RoundTrips
// counts them.
type Trips struct {
	NewKey              int64 // a key never seen: claim, work, complete
	Duplicate           int64 // a key already completed: the stored result
	DuplicateInProgress int64 // a key another worker holds
}

// RoundTrips runs idem.Do for a new key, a duplicate of it, and a key
// held by another worker, and returns what count (the requests the store
// sent since it was last called) says each cost. Every operation runs
// once before anything is counted, so that a store's first-use costs
// (prepared statements, scripts loaded) are left out.
func RoundTrips(t *testing.T, s idem.Store, count func() int64) Trips {
	t.Helper()
	ctx := context.Background()
	suffix := storekit.NewOwner()[:8]
	work := func(context.Context) ([]byte, error) { return []byte("summary"), nil }
	now := time.Now()
	req := func(key idem.Key) idem.ClaimRequest {
		return Request(key, storekit.NewOwner(), now)
	}
	warm := req(idem.Key("warm#" + suffix))
	if _, err := s.Claim(ctx, warm); err != nil {
		t.Fatal(err)
	}
	_ = s.Extend(ctx, idem.Extension{Key: warm.Key, Owner: warm.Owner, LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(2 * time.Hour)})
	_ = s.Release(ctx, warm.Key, warm.Owner)
	if _, err := idem.Do(ctx, s, warm.Key, "", work); err != nil {
		t.Fatal(err)
	}
	count()

	var trips Trips
	key := idem.Key("req#" + suffix)
	if r, err := idem.Do(ctx, s, key, "fp", work); err != nil || r.Outcome != idem.Executed {
		t.Fatalf("first delivery: %+v, %v", r, err)
	}
	trips.NewKey = count()
	r, err := idem.Do(ctx, s, key, "fp", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a duplicate")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "summary" {
		t.Fatalf("duplicate: %+v, %v; want the stored result replayed", r, err)
	}
	trips.Duplicate = count()
	busy := req(idem.Key("busy#" + suffix))
	if c, err := s.Claim(ctx, busy); err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	count()
	if r, err := idem.Do(ctx, s, busy.Key, "", work); err != nil || r.Outcome != idem.InProgress {
		t.Fatalf("duplicate in progress: %+v, %v", r, err)
	}
	trips.DuplicateInProgress = count()
	return trips
}

// Unreachable checks a store whose server does not answer: idem.Do
// returns a claim *idem.Error naming the key, not idem.ErrLeaseLost, and
// runs nothing.
func Unreachable(t *testing.T, s idem.Store) {
	t.Helper()
	ran := false
	_, err := idem.Do(context.Background(), s, "t#down", "", func(context.Context) ([]byte, error) { ran = true; return nil, nil })
	var ie *idem.Error
	if !errors.As(err, &ie) || ie.Op != "claim" || ie.Key != "t#down" || errors.Is(err, idem.ErrLeaseLost) || ran {
		t.Fatalf("err %v (ran %v), want a claim *idem.Error for the key and the work not run", err, ran)
	}
}

// ResultLimit checks a store made to keep results of at most limit
// bytes: a larger one is idem.ErrResultTooLarge in an *idem.Error naming
// the key, and leaves the claim the caller's, which then completes with
// a result of limit bytes.
func ResultLimit(t *testing.T, s idem.Store, limit int) {
	t.Helper()
	ctx := context.Background()
	now := base()
	key := idem.Key("t#limit-" + storekit.NewOwner()[:8])
	owner := MustClaim(t, s, key, now)
	err := s.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: make([]byte, limit+1), ExpiresAt: now.Add(time.Hour)})
	var ie *idem.Error
	if !errors.Is(err, idem.ErrResultTooLarge) || !errors.As(err, &ie) || ie.Key != key {
		t.Fatalf("a result of %d bytes: err %v, want idem.ErrResultTooLarge in an *idem.Error for the key", limit+1, err)
	}
	if err := s.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: make([]byte, limit), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatalf("a result at the limit: %v", err)
	}
}
