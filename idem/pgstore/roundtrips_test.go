package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/internal/pgtest"
)

// A new key costs a claim and a completion, one statement each; a
// duplicate costs the claim alone, which brings back the stored result or
// the holder's lease. docs/stores.md quotes these counts. A statement is
// one round trip once its connection has prepared it (pgx's default
// statement cache prepares each statement once per connection; the
// tracer counts executions, not those).
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	pool, statements := countingPool(t)
	store := pgstore.New(pool, pgtest.NewTable(t, pool))
	ctx := context.Background()
	work := func(context.Context) ([]byte, error) { return []byte("summary"), nil }
	statements.take() // the table's creation

	r, err := idem.Do(ctx, store, "req#new", "fp", work)
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("first delivery: %+v, %v", r, err)
	}
	wantStatements(t, "new key", statements.take(), 2)

	r, err = idem.Do(ctx, store, "req#new", "fp", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a duplicate")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "summary" {
		t.Fatalf("duplicate: %+v, %v; want the stored result replayed", r, err)
	}
	wantStatements(t, "duplicate", statements.take(), 1)

	now := time.Now()
	if c, err := store.Claim(ctx, idem.ClaimRequest{Key: "req#busy", Owner: idem.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	statements.take()
	r, err = idem.Do(ctx, store, "req#busy", "", work)
	if err != nil || r.Outcome != idem.InProgress {
		t.Fatalf("duplicate in progress: %+v, %v", r, err)
	}
	wantStatements(t, "duplicate in progress", statements.take(), 1)

	// Staged writes make the completion a transaction: BEGIN, the
	// UPDATE, each write, COMMIT.
	r, err = idem.Do(ctx, store, "req#staged", "", func(ctx context.Context) ([]byte, error) {
		return []byte("ok"), pgstore.Stage(ctx, func(context.Context, pgx.Tx) error { return nil })
	})
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("staged: %+v, %v", r, err)
	}
	wantStatements(t, "new key with a staged write that sends nothing", statements.take(), 1+3)
}

func wantStatements(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %d statements, want %d", what, got, want)
	}
}
