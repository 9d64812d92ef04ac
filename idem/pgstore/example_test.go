package pgstore_test

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
)

// TestMain skips the examples that need a server under -short when there
// is none, as the tests skip themselves; without -short they run and fail.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() && os.Getenv(pgtest.URLEnv) == "" {
		_ = flag.Set("test.skip", "^Example$|^ExampleStage$")
	}
	os.Exit(m.Run())
}

func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("IDEMQ_TEST_POSTGRES_URL")) // your DATABASE_URL
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	table := pgtest.TableName() // "idempotency"
	if err := pgstore.CreateTable(ctx, pool, table); err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Exec(ctx, "DROP TABLE "+table)
	store, err := pgstore.New(pool, table)
	if err != nil {
		log.Fatal(err)
	}

	work := func(context.Context) ([]byte, error) {
		fmt.Println("calling the provider")
		return []byte("summary #1"), nil
	}
	for range 2 { // a message and its redelivery
		r, err := idem.Do(ctx, store, "order#1", "", work)
		fmt.Printf("%s: %s %v\n", r.Outcome, r.Value, err)
	}
	// Output:
	// calling the provider
	// executed: summary #1 <nil>
	// replayed: summary #1 <nil>
}

// A write staged with pgstore.Stage commits in the transaction that
// completes the record: the order row and the record agree, whatever
// fails in between.
func ExampleStage() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("IDEMQ_TEST_POSTGRES_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	table := pgtest.TableName()
	if err := pgstore.CreateTable(ctx, pool, table); err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Exec(ctx, "DROP TABLE "+table)
	orders := table + "_orders"
	if _, err := pool.Exec(ctx, "CREATE TABLE "+orders+" (id text PRIMARY KEY, total int)"); err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Exec(ctx, "DROP TABLE "+orders)
	store, err := pgstore.New(pool, table)
	if err != nil {
		log.Fatal(err)
	}

	work := func(ctx context.Context) ([]byte, error) {
		err := pgstore.Stage(ctx, func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO "+orders+" (id, total) VALUES ('o-1', 42)")
			return err
		})
		return []byte("accepted"), err
	}
	for range 2 {
		r, err := idem.Do(ctx, store, "order#o-1", "", work)
		fmt.Println(r.Outcome, err)
	}
	// Output:
	// executed <nil>
	// replayed <nil>
}

func ExampleSchema() {
	fmt.Println(pgstore.Schema("idempotency"))
	// Output:
	// CREATE TABLE IF NOT EXISTS "idempotency" (
	//     id                     text   PRIMARY KEY,
	//     status                 text   NOT NULL CHECK (status IN ('INPROGRESS', 'COMPLETED')),
	//     expiration             bigint NOT NULL,
	//     in_progress_expiration bigint,
	//     owner                  text   NOT NULL,
	//     validation             text,
	//     data                   bytea,
	//     result_omitted_bytes   bigint,
	//     data_encoding          text
	// );
	// ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS data_encoding text;
	// CREATE INDEX IF NOT EXISTS "idempotency_expiration_idx" ON "idempotency" (expiration);
}
