package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/internal/redistest"
)

// A new key costs a claim and a completion, one script each; a duplicate
// costs the claim alone, which brings back the stored result or the
// holder's lease. docs/stores.md quotes these counts. A script is one
// EVALSHA, once the server has it: the first run of each on a server is
// an EVALSHA answered NOSCRIPT, then an EVAL.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	commands := &counter{}
	client := newClient(t, "", nil)
	client.AddHook(commands)
	store := redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t)))
	ctx := context.Background()
	work := func(context.Context) ([]byte, error) { return []byte("summary"), nil }

	// Load the scripts: a first claim, extension, release and completion.
	for _, key := range []idem.Key{"warm#1", "warm#2"} {
		now := time.Now()
		owner := idem.NewOwner()
		if _, err := store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: owner, Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		_ = store.Extend(ctx, key, owner, now.Add(time.Hour))
		if key == "warm#1" {
			_ = store.Release(ctx, key, owner)
		} else {
			_ = store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte("w"), ExpiresAt: now.Add(time.Hour)})
		}
	}
	commands.take()

	r, err := idem.Do(ctx, store, "req#new", "fp", work)
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("first delivery: %+v, %v", r, err)
	}
	wantCommands(t, "new key", commands.take(), 2)

	r, err = idem.Do(ctx, store, "req#new", "fp", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a duplicate")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "summary" {
		t.Fatalf("duplicate: %+v, %v; want the stored result replayed", r, err)
	}
	wantCommands(t, "duplicate", commands.take(), 1)

	now := time.Now()
	if c, err := store.Claim(ctx, idem.ClaimRequest{Key: "req#busy", Owner: idem.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	commands.take()
	r, err = idem.Do(ctx, store, "req#busy", "", work)
	if err != nil || r.Outcome != idem.InProgress {
		t.Fatalf("duplicate in progress: %+v, %v", r, err)
	}
	wantCommands(t, "duplicate in progress", commands.take(), 1)
}

func wantCommands(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %d commands, want %d", what, got, want)
	}
}
