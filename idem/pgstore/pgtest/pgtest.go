package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
)

// URLEnv names the environment variable holding the server's URL, as
// scripts/with-postgres.sh exports it.
const URLEnv = "IDEMQ_TEST_POSTGRES_URL"

// Hint says how to get a server.
const Hint = "start PostgreSQL and set " + URLEnv + " to a postgres:// URL (in idemq's repository: make test, or scripts/with-postgres.sh go test ./...)"

// MaxConns is the size of the pool Pool returns: enough connections that
// the conformance suite's racing claims really race.
const MaxConns = 16

// URL returns the server's URL, skipping the test under -short, and
// failing it otherwise, when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	return idemtest.ServerURL(t, URLEnv, Hint)
}

// Pool returns a pool on the server shared by the package's tests (made
// and checked once). It skips the test under -short, and fails it
// otherwise, when the server is not there.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	url := URL(t)
	pool, err := idemtest.Shared(url, func(url string) (*pgxpool.Pool, error) { return Connect(url, nil) })
	if err != nil {
		Unavailable(t, fmt.Sprintf("%s=%s does not answer: %v", URLEnv, url, err))
	}
	return pool
}

// Connect makes a pool of MaxConns on url, with tracer (may be nil), and
// checks that the server answers within 10 s.
func Connect(url string, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = MaxConns
	cfg.ConnConfig.Tracer = tracer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Unavailable skips the test under -short and fails it otherwise, saying
// why and Hint.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	idemtest.Unavailable(t, why, Hint)
}

// NewTable creates a table of the store's shape with a fresh name, and
// drops it when the test ends.
func NewTable(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	table := TableName()
	if err := pgstore.CreateTable(context.Background(), pool, table); err != nil {
		t.Fatalf("create table %s: %v", table, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{table}.Sanitize()); err != nil {
			t.Errorf("drop table %s: %v", table, err)
		}
	})
	return table
}

// TableName returns a fresh table name.
func TableName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "idem_test_" + hex.EncodeToString(b[:])
}
