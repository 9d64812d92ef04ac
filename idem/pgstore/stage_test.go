package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/internal/storekit"
)

// ledger makes a side table for the staged writes, dropped with the test.
func (b *bundle) ledger(t *testing.T) string {
	t.Helper()
	name := pgx.Identifier{b.table + "_ledger"}.Sanitize()
	if _, err := b.pool.Exec(context.Background(), "CREATE TABLE "+name+" (k text PRIMARY KEY, v int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.pool.Exec(context.Background(), "DROP TABLE "+name) })
	return name
}

func (b *bundle) ledgerRows(t *testing.T, ledger string) int {
	t.Helper()
	var n int
	if err := b.pool.QueryRow(context.Background(), "SELECT count(*) FROM "+ledger).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func insertInto(ledger, k string) pgstore.Write {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO "+ledger+" (k, v) VALUES ($1, 1)", k)
		return err
	}
}

func TestStagedWritesCommitWithTheRecord(t *testing.T) {
	b := setup(t)
	ledger := b.ledger(t)
	ctx := context.Background()
	work := func(ctx context.Context) ([]byte, error) {
		if err := pgstore.Stage(ctx, insertInto(ledger, "a")); err != nil {
			return nil, err
		}
		return []byte("ok"), pgstore.Stage(ctx, insertInto(ledger, "b"))
	}
	for range 2 {
		if _, err := idem.Do(ctx, b.store, "t#staged", "", work); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.ledgerRows(t, ledger); n != 2 {
		t.Fatalf("%d ledger rows, want the 2 staged once", n)
	}
	if rec, _ := idemtest.MustGet(t, b.store, "t#staged"); rec.Status != idem.StatusCompleted || string(rec.Result) != "ok" {
		t.Fatalf("record %+v, want COMPLETED with the result", rec)
	}
}

// A staged write that fails rolls the completion back: the record stays
// the owner's claim (idem.Do then releases it), and no write is kept.
func TestStagedWriteFailureRollsBack(t *testing.T) {
	b := setup(t)
	ledger := b.ledger(t)
	ctx := context.Background()
	owner := idemtest.MustClaim(t, b.store, "t#fails", b.now)
	boom := errors.New("boom")
	err := b.store.Complete(ctx, idem.Completion{Key: "t#fails", Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour),
		Writes: stageAll(t, insertInto(ledger, "a"), func(context.Context, pgx.Tx) error { return boom })})
	var ie *idem.Error
	if !errors.Is(err, boom) || !errors.As(err, &ie) || ie.Key != "t#fails" || idem.Retryable(err) {
		t.Fatalf("err %v, want the write's error in an *idem.Error, not retryable", err)
	}
	if rec, _ := idemtest.MustGet(t, b.store, "t#fails"); rec.Status != idem.StatusInProgress || rec.Owner != owner {
		t.Fatalf("record %+v, want the owner's claim untouched", rec)
	}
	if n := b.ledgerRows(t, ledger); n != 0 {
		t.Fatalf("%d ledger rows survived the rollback", n)
	}
}

// A stale owner's completion runs none of its writes.
func TestStagedWritesOfAStaleOwnerDoNotRun(t *testing.T) {
	b := setup(t)
	ledger := b.ledger(t)
	ran := false
	err := b.store.Complete(context.Background(), idem.Completion{Key: "t#stale", Owner: storekit.NewOwner(), Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour),
		Writes: stageAll(t, func(context.Context, pgx.Tx) error { ran = true; return nil })})
	if !errors.Is(err, idem.ErrLeaseLost) || ran {
		t.Fatalf("err %v, ran %v; want idem.ErrLeaseLost and the write not run", err, ran)
	}
	if n := b.ledgerRows(t, ledger); n != 0 {
		t.Fatalf("%d ledger rows", n)
	}
}

func TestUnsupportedWrite(t *testing.T) {
	b := setup(t)
	owner := idemtest.MustClaim(t, b.store, "t#other", b.now)
	err := b.store.Complete(context.Background(), idem.Completion{Key: "t#other", Owner: owner, ExpiresAt: b.now.Add(time.Hour), Writes: []any{"UPDATE x"}})
	if !errors.Is(err, idem.ErrUnsupportedWrite) {
		t.Fatalf("err %v, want idem.ErrUnsupportedWrite", err)
	}
	if rec, _ := idemtest.MustGet(t, b.store, "t#other"); rec.Status != idem.StatusInProgress {
		t.Fatalf("record %+v, want the claim untouched", rec)
	}
}

// stageAll collects writes the way idem.Do does, through pgstore.Stage.
func stageAll(t *testing.T, ws ...pgstore.Write) []any {
	t.Helper()
	c := &capture{}
	_, err := idem.Do(context.Background(), c, "stage", "", func(ctx context.Context) ([]byte, error) {
		for _, w := range ws {
			if err := pgstore.Stage(ctx, w); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.writes
}

// capture is a store that claims every key and keeps the writes of the
// last completion.
type capture struct{ writes []any }

func (c *capture) Claim(context.Context, idem.ClaimRequest) (idem.Claim, error) {
	return idem.Claim{Claimed: true}, nil
}

func (c *capture) Complete(_ context.Context, comp idem.Completion) error {
	c.writes = comp.Writes
	return nil
}

func (c *capture) Release(context.Context, idem.Key, string) error { return nil }

func (c *capture) Extend(context.Context, idem.Extension) error { return nil }
