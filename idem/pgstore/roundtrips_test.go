package pgstore_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
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
	store := must(pgstore.New(pool, pgtest.NewTable(t, pool)))
	got := idemtest.RoundTrips(t, store, statements.take)
	if want := (idemtest.Trips{NewKey: 2, Duplicate: 1, DuplicateInProgress: 1}); got != want {
		t.Errorf("statements %+v, want %+v", got, want)
	}

	// Staged writes make the completion a transaction: BEGIN, the
	// UPDATE, each write, COMMIT.
	statements.take()
	r, err := idem.Do(context.Background(), store, "req#staged", "", func(ctx context.Context) ([]byte, error) {
		return []byte("ok"), pgstore.Stage(ctx, func(context.Context, pgx.Tx) error { return nil })
	})
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("staged: %+v, %v", r, err)
	}
	if n := statements.take(); n != 1+3 {
		t.Errorf("new key with a staged write that sends nothing: %d statements, want 4 (claim, BEGIN, UPDATE, COMMIT)", n)
	}
}
