package pgstore

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
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

// defaultMaxResultBytes is the largest result a Store keeps unless told
// otherwise: 512 KiB. PostgreSQL would take up to 1 GB in a bytea, but a
// duplicate's one round trip carries the result back, and a record is
// read on every redelivery; results this large belong elsewhere (store a
// pointer to them).
const defaultMaxResultBytes = 512 << 10

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

// Config is a Store's settings, besides the pool and the table that New
// takes, declared, defaulted and checked here as every idemq package does
// it (docs/options.md): a zero field is its default, a negative one is
// refused, the options only set fields, and WithConfig passes a Config
// whole. The zero value takes every default.
type Config struct {
	// MaxResultBytes is the largest result Complete accepts, counted as
	// stored (compressed, when idem.Do compressed it); a larger one fails
	// with idem.ErrResultTooLarge before anything is sent (and idem.Do
	// then completes the record without it). Defaults to
	// defaultMaxResultBytes.
	MaxResultBytes int
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithMaxResultBytes sets Config.MaxResultBytes, the largest result
// Complete accepts. Defaults to 512 KiB.
func WithMaxResultBytes(n int) Option {
	return func(c *Config) { c.MaxResultBytes = n }
}

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. It is the resolve step New runs, without its
// result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	var err error
	if c.MaxResultBytes, err = optkit.ByteLimit("pgstore", "MaxResultBytes", c.MaxResultBytes, defaultMaxResultBytes); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "pgstore", Field: field, Value: value, Err: err}
}

// errEmptyTable is what a ConfigError says of an empty table name.
var errEmptyTable = errors.New("must not be empty")

// New returns a Store keeping records in table (a name, or schema.name)
// through db, usually a *pgxpool.Pool. It sends nothing: create the table
// with CreateTable, or with the DDL that Schema returns, and check one made
// by other means with Check. It returns an error joining an
// *idem.ConfigError for every bad setting (joined): a nil
// db, an empty table name, a nil option, a setting Validate refuses.
func New(db DB, table string, opts ...Option) (*Store, error) {
	var errs []error
	if p, ok := db.(*pgxpool.Pool); db == nil || ok && p == nil {
		errs = append(errs, configError("db", "", optkit.ErrNil))
	}
	if table == "" {
		errs = append(errs, configError("table", `""`, errEmptyTable))
	}
	c, err := optkit.ApplyOptions("pgstore", opts)
	errs = append(errs, err)
	c, err = c.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	quoted := quoteTable(table)
	return &Store{db: db, table: quoted, name: table, maxResult: c.MaxResultBytes, sql: newStatements(quoted)}, nil
}

// Table returns the table name as given to New.
func (s *Store) Table() string { return s.name }

// quoteTable quotes a table name, or schema.name, as an identifier.
func quoteTable(table string) string {
	return pgx.Identifier(strings.Split(table, ".")).Sanitize()
}
