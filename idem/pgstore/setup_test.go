package pgstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
)

// bundle is one test's pool, table, store and time.
type bundle struct {
	pool  *pgxpool.Pool
	table string
	store *pgstore.Store
	now   time.Time
}

func setup(t *testing.T, opts ...pgstore.Option) *bundle {
	t.Helper()
	t.Parallel()
	pool := pgtest.Pool(t)
	table := pgtest.NewTable(t, pool)
	return &bundle{pool: pool, table: table, store: must(pgstore.New(pool, table, opts...)), now: time.Now().Truncate(time.Second)}
}

// counter is a pgx tracer that counts the statements a pool sends: one
// round trip each once the statement is prepared.
type counter struct{ n atomic.Int64 }

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// take returns the count so far and resets it.
func (c *counter) take() int64 { return c.n.Swap(0) }

// countingPool is a pool of its own on the test server whose statements
// are counted.
func countingPool(t *testing.T) (*pgxpool.Pool, *counter) {
	t.Helper()
	c := &counter{}
	pool, err := pgtest.Connect(pgtest.URL(t), c)
	if err != nil {
		pgtest.Unavailable(t, err.Error())
	}
	t.Cleanup(pool.Close)
	return pool, c
}
