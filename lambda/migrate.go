package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/pgstore"
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
	c := config{store: strings.ToLower(getenv(envStore)), storeURL: getenv(envStoreURL), table: getenv(envTable)}
	errs := checkStore(&c)
	if c.store != "postgres" {
		errs = append(errs, fmt.Errorf("-migrate creates the PostgreSQL table of records: set %s=postgres (%s is %s; the DynamoDB table is the CDK stack's, Redis and memory need none)",
			envStore, envStore, c.store))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bad configuration:\n%w", err)
	}
	pool, err := pgxpool.New(ctx, c.storeURL)
	if err != nil {
		return storeURLError(c.storeURL, err)
	}
	defer pool.Close()
	if err := pgstore.CreateTable(ctx, pool, c.table); err != nil {
		err = fmt.Errorf("%s=%s: %w", envTable, c.table, err)
		return redacted{err: err, msg: hideSecrets(err.Error(), c.storeURL)}
	}
	_, err = fmt.Fprintf(out, "idemq worker: table %s is ready: it has the store's shape (pgstore.Schema)\n", c.table)
	return err
}
