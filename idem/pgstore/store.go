package pgstore

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
)

// DB is the part of a PostgreSQL connection pool the store calls.
// *pgxpool.Pool satisfies it; tests wrap it to count or fail statements.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

var (
	_ DB         = (*pgxpool.Pool)(nil)
	_ idem.Store = (*Store)(nil)
)

// DefaultMaxResultBytes is the largest result a Store keeps unless told
// otherwise: 512 KiB. PostgreSQL would take up to 1 GB in a bytea, but a
// duplicate's one round trip carries the result back, and a record is
// read on every redelivery; results this large belong elsewhere (store a
// pointer to them).
const DefaultMaxResultBytes = 512 << 10

// Store is an idem.Store kept in one PostgreSQL table, one row per key.
// Each method is one statement (Complete with staged writes, one
// transaction) whose conditions PostgreSQL evaluates under the row's lock,
// so any number of workers can share a table. It is safe for concurrent
// use.
type Store struct {
	db        DB
	table     string // the quoted, schema-qualified name
	name      string // the name as given, for messages
	maxResult int
	sql       statements
}

// Option configures a Store.
type Option func(*options)

type options struct {
	maxResult int
}

// WithMaxResultBytes sets the largest result Complete accepts, counted as
// stored (compressed, when idem.Do compressed it); a larger one fails with
// idem.ErrResultTooLarge before anything is sent (and idem.Do then
// completes the record without it). Defaults to DefaultMaxResultBytes.
func WithMaxResultBytes(n int) Option {
	return func(o *options) { o.maxResult = n }
}

// New returns a Store keeping records in table (a name, or schema.name)
// through db, usually a *pgxpool.Pool. It sends nothing: create the table
// with CreateTable, or with the DDL that Schema returns, and check one made
// by other means with Check. New panics if db is nil, table is empty or
// the result limit is not positive.
func New(db DB, table string, opts ...Option) *Store {
	if db == nil {
		panic("pgstore: nil db")
	}
	if p, ok := db.(*pgxpool.Pool); ok && p == nil {
		panic("pgstore: nil db")
	}
	if table == "" {
		panic("pgstore: empty table name")
	}
	o := options{maxResult: DefaultMaxResultBytes}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxResult <= 0 {
		panic("pgstore: WithMaxResultBytes must be positive")
	}
	quoted := quoteTable(table)
	return &Store{db: db, table: quoted, name: table, maxResult: o.maxResult, sql: newStatements(quoted)}
}

// Table returns the table name as given to New.
func (s *Store) Table() string { return s.name }

// quoteTable quotes a table name, or schema.name, as an identifier.
func quoteTable(table string) string {
	return pgx.Identifier(strings.Split(table, ".")).Sanitize()
}
