package pgstore_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/internal/storekit"
)

// earlierSchema is the table as Schema made it before results were
// compressed: no data_encoding.
const earlierSchema = `CREATE TABLE %[1]s (
    id                     text   PRIMARY KEY,
    status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
    expiration             bigint NOT NULL,
    in_progress_expiration bigint,
    owner                  text   NOT NULL,
    validation             text,
    data                   bytea,
    result_omitted_bytes   bigint
);
CREATE INDEX ON %[1]s (expiration);`

// hasColumn reports whether table has the column.
func hasColumn(t *testing.T, table, column string) bool {
	t.Helper()
	var ok bool
	err := pgtest.Pool(t).QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_attribute
	WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped)`, pgx.Identifier{table}.Sanitize(), column).Scan(&ok)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A table made by the version before data_encoding: Check refuses it,
// naming the column and the migration, and the store writes nothing to
// it; CreateTable (the migration) adds the column, after which the rows
// written before replay as they were and new results are compressed.
func TestTableOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	table := pgtest.TableName()
	quoted := pgx.Identifier{table}.Sanitize()
	if _, err := pool.Exec(ctx, strings.ReplaceAll(earlierSchema, "%[1]s", quoted)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP TABLE "+quoted) })
	now := time.Now().Truncate(time.Second)
	// A record completed by the earlier version, whose result happens to
	// be a gzip stream: it is a raw result all the same.
	old := []byte{0x1f, 0x8b, 0x08, 0x00, 'r', 'a', 'w'}
	if _, err := pool.Exec(ctx, "INSERT INTO "+quoted+" (id, status, expiration, owner, data) VALUES ('k#old', 'COMPLETED', $1, 'o1', $2)",
		now.Add(time.Hour).Unix(), old); err != nil {
		t.Fatal(err)
	}

	store := must(pgstore.New(pool, table))
	err := store.Check(ctx)
	if !errors.Is(err, pgstore.ErrTableShape) {
		t.Fatalf("Check: %v, want pgstore.ErrTableShape", err)
	}
	for _, want := range []string{"column data_encoding is missing", "pgstore.CreateTable", "ADD COLUMN IF NOT EXISTS data_encoding text"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %q does not say %q", err, want)
		}
	}
	_, err = store.Claim(ctx, idemtest.Request("k#new", storekit.NewOwner(), now))
	if !errors.Is(err, pgstore.ErrTableShape) {
		t.Fatalf("claim before the migration: %v, want pgstore.ErrTableShape", err)
	}

	for range 2 { // the migration, twice the same as once
		if err := pgstore.CreateTable(ctx, pool, table); err != nil {
			t.Fatalf("CreateTable over the earlier table: %v", err)
		}
	}
	if err := store.Check(ctx); err != nil {
		t.Fatalf("Check after the migration: %v", err)
	}
	r, err := idem.Do(ctx, store, "k#old", "", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a completed key")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, old) {
		t.Fatalf("the earlier record: %s %q, %v; want its result replayed as it was stored", r.Outcome, r.Value, err)
	}
	prose := idemtest.Prose(4 << 10)
	if _, err := idem.Do(ctx, store, "k#new", "", func(context.Context) ([]byte, error) { return prose, nil }); err != nil {
		t.Fatal(err)
	}
	rec, _ := idemtest.MustGet(t, store, "k#new")
	if v, err := rec.DecodedResult(0); rec.Encoding != storekit.EncodingGzip || err != nil || !bytes.Equal(v, prose) {
		t.Fatalf("a new result: stored with encoding %q (%v), want it gzipped", rec.Encoding, err)
	}
}

// CreateTable adds the new column only to a table that otherwise has the
// store's shape: a foreign table is left as it was.
func TestCreateTableDoesNotUpgradeAForeignTable(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	table := pgtest.TableName()
	quoted := pgx.Identifier{table}.Sanitize()
	ddl := strings.Replace(strings.ReplaceAll(earlierSchema, "%[1]s", quoted), "expiration             bigint NOT NULL", "expiration timestamptz NOT NULL", 1)
	if _, err := pool.Exec(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP TABLE "+quoted) })
	err := pgstore.CreateTable(ctx, pool, table)
	if !errors.Is(err, pgstore.ErrTableShape) || !strings.Contains(err.Error(), "column expiration is timestamp with time zone") {
		t.Fatalf("CreateTable: %v, want pgstore.ErrTableShape naming the expiration column", err)
	}
	if hasColumn(t, table, "data_encoding") {
		t.Fatal("CreateTable added data_encoding to a table of another shape")
	}
}
