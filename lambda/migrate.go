package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/internal/storeenv"
)

// migrateHint says how to create the PostgreSQL table the worker only
// checks.
const migrateHint = "the worker does not create or change its table: run the migration, `go run ./lambda -migrate` " +
	"(or the built bootstrap with -migrate, or make migrate-postgres) with the same " + envStoreURL + " and " + envTable +
	"; it creates a missing table and says what differs in one of another shape"

// migrate creates the PostgreSQL table of records named by the environment
// (IDEMQ_STORE=postgres, IDEMQ_STORE_URL, IDEMQ_TABLE) if it is missing,
// with pgstore.CreateTable, and checks its shape. It reads no other
// variable. Its error never holds the store's password.
func migrate(ctx context.Context, getenv func(string) string, out io.Writer) error {
	c, err := storeenv.Load(getenv)
	errs := []error{err}
	if c.Store != storeenv.Postgres {
		errs = append(errs, fmt.Errorf("-migrate creates the PostgreSQL table of records: set %s=postgres (%s is %s; the DynamoDB table is the CDK stack's, Redis and memory need none)",
			envStore, envStore, c.Store))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bad configuration:\n%w", err)
	}
	pool, err := pgxpool.New(ctx, c.URL)
	if err != nil {
		return storeenv.URLError(c.URL, err)
	}
	defer pool.Close()
	if err := pgstore.CreateTable(ctx, pool, c.Table); err != nil {
		err = fmt.Errorf("%s=%s: %w", envTable, c.Table, err)
		return storeenv.Redact(err, c.URL)
	}
	_, err = fmt.Fprintf(out, "idemq worker: table %s is ready: it has the store's shape (pgstore.Schema)\n", c.Table)
	return err
}
