package pgstore_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/pgstore"
)

// New takes a pool and the table's name; it sends nothing, so the table
// is made first (CreateTable, once, or the DDL Schema returns). (Not run:
// it needs a server.)
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := pgstore.CreateTable(ctx, pool, "idempotency"); err != nil {
		log.Fatal(err)
	}
	store, err := pgstore.New(pool, "idempotency")
	if err != nil {
		log.Fatal(err) // a nil pool, an empty table name, a bad option
	}
	type Order struct {
		ID string `json:"order_id" idemq:"key"`
	}
	h, err := handler.NewTyped(store, func(ctx context.Context, o Order) (string, error) {
		return "charged " + o.ID, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = h // lambda.Start(h), or consumer.New(sqsClient, queueURL, h)
}
