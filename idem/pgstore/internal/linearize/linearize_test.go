// Package linearize_test checks pgstore's histories (here, not in
// pgstore's own tests, so that a user of pgstore never needs the
// checker).
package linearize_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/internal/lintest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/internal/netfault"
)

// The store's histories under concurrent clients, checked against the
// model of a key's record: through a proxy that loses answers after
// PostgreSQL applied the request and refuses others, with timeouts,
// pauses past the lease and clocks within the bound (make linearize adds
// long runs, restarts of the server and clocks beyond the bound).
func TestLinearizable(t *testing.T) {
	t.Parallel()
	lintest.Run(t, lintest.Store{
		Name:       "postgres",
		Layer:      true,
		RestartEnv: "IDEMQ_TEST_POSTGRES_RESTART",
		Open: func(t *testing.T, faults *linearize.Faults) idem.Store {
			pool := pgtest.Pool(t)
			table := pgtest.NewTable(t, pool)
			cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			p, err := netfault.Start(fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port), lintest.Filter(faults))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			host, port, _ := net.SplitHostPort(p.Addr())
			cfg.ConnConfig.Host = host
			if _, err := fmt.Sscan(port, &cfg.ConnConfig.Port); err != nil {
				t.Fatal(err)
			}
			cfg.MaxConns = 32
			faulty, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(faulty.Close)
			s, err := pgstore.New(faulty, table)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}
