package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgenv"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
)

// migrateHint says how to create the PostgreSQL table the worker only
// checks.
const migrateHint = "the worker does not create or change its table: run the migration, `go run ./lambda -migrate` " +
	"(or the built bootstrap with -migrate, or make migrate-postgres) with the same IDEMQ_STORE_URL and IDEMQ_TABLE" +
	"; it creates a missing table and says what differs in one of another shape"

// migrate creates the PostgreSQL table of records named by the environment
// (IDEMQ_STORE=postgres, IDEMQ_STORE_URL, IDEMQ_TABLE) if it is missing,
// with pgstore.CreateTable, and checks its shape. It reads no other
// variable. Its error never holds the store's password.
func migrate(ctx context.Context, getenv func(string) string, out io.Writer) error {
	only := func(name string) string { // the store's variables, and no other
		if name == "IDEMQ_STORE" || name == "IDEMQ_STORE_URL" || name == "IDEMQ_TABLE" {
			return getenv(name)
		}
		return ""
	}
	s, err := idemqenv.ReadFor(idemqenv.Worker, only)
	errs := []error{err}
	if c := s.Store; c.Kind != stores.Postgres {
		errs = append(errs, fmt.Errorf("-migrate creates the PostgreSQL table of records: set IDEMQ_STORE=postgres (IDEMQ_STORE is %s; the DynamoDB table is the CDK stack's, Redis and memory need none)", c.Kind))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bad configuration:\n%w", err)
	}
	c := s.Store
	pc, err := pgenv.PoolConfig(c.URL, 0)
	if err != nil {
		return stores.URLError(c.URL, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return stores.URLError(c.URL, err)
	}
	defer pool.Close()
	if err := pgstore.CreateTable(ctx, pool, c.Table); err != nil {
		err = fmt.Errorf("IDEMQ_TABLE=%s: %w", c.Table, err)
		return stores.Redact(err, c.URL)
	}
	_, err = fmt.Fprintf(out, "idemq worker: table %s is ready: it has the store's shape (pgstore.Schema)\n", c.Table)
	return err
}
