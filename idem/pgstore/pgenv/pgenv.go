package pgenv

import (
	"context"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/stores"
)

// Opener opens the PostgreSQL store (IDEMQ_STORE=postgres): a pool of
// IDEMQ_STORE_URL sized by PoolConfig, and pgstore.New over IDEMQ_TABLE.
// It makes no request; pgstore.Store.Check reads the table's shape.
func Opener() stores.Opener {
	return stores.Opener{Kind: stores.Postgres, Open: open}
}

func open(ctx context.Context, s stores.Settings, c stores.Config) (stores.Records, func(), error) {
	pc, err := PoolConfig(s.URL, c.Connections)
	if err != nil {
		return nil, nil, stores.URLError(s.URL, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, nil, stores.URLError(s.URL, err)
	}
	st, err := pgstore.New(pool, s.Table)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return st, pool.Close, nil
}

// PoolConfig parses the store's URL and sizes its pool to conns
// connections (none: pgxpool's default, max(4, CPUs)), unless the URL
// sets pool_max_conns: PostgreSQL's own max_connections (100 by default)
// is shared by every worker, so an operator who has counted them has the
// last word. Its error may quote the URL: report it with
// stores.URLError.
func PoolConfig(storeURL string, conns int) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(storeURL)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(storeURL)
	if err != nil {
		return nil, err
	}
	if conns > 0 && !u.Query().Has("pool_max_conns") {
		if conns > 1<<31-1 {
			return nil, fmt.Errorf("%d connections are more than a pool can hold", conns)
		}
		pc.MaxConns = int32(conns)
	}
	return pc, nil
}
