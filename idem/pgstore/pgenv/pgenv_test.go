package pgenv_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore/pgenv"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/idem/stores"
)

// The opener opens the table IDEMQ_TABLE names on IDEMQ_STORE_URL's
// server: a record claimed through it is read back through the server.
func TestOpener(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	table := pgtest.NewTable(t, pool)
	st, closeStore, err := stores.Open(context.Background(), stores.Settings{Kind: stores.Postgres, URL: pgtest.URL(t), Table: table},
		stores.Config{Connections: 3}, pgenv.Opener())
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	now := time.Now()
	if _, err := st.Claim(context.Background(), idem.ClaimRequest{Key: "ns#k", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows in %s, %v; want the claim's", n, table, err)
	}
}

func TestPoolConfig(t *testing.T) {
	t.Parallel()
	pc, err := pgenv.PoolConfig("postgres://idemq@127.0.0.1:5432/idemq", 200)
	if err != nil || pc.MaxConns != 200 {
		t.Errorf("pool of %d connections (%v), want 200 (invocations × records)", pc.MaxConns, err)
	}
	// The operator's bound stands: PostgreSQL's max_connections is shared.
	if pc, err = pgenv.PoolConfig("postgres://idemq@127.0.0.1:5432/idemq?pool_max_conns=20", 200); err != nil || pc.MaxConns != 20 {
		t.Errorf("pool_max_conns=20: %v, %v; want 20", pc.MaxConns, err)
	}
}

// A URL pgx refuses is reported without its password.
func TestOpenerRedacts(t *testing.T) {
	t.Parallel()
	_, _, err := pgenv.Opener().Open(context.Background(), stores.Settings{Kind: stores.Postgres,
		URL: "postgres://u:s3cr3t@127.0.0.1:1/db?sslmode=s3cr3t", Table: "t"}, stores.Config{})
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "IDEMQ_STORE_URL=postgres://u:xxxxx@127.0.0.1:1/db?sslmode=xxxxx") {
		t.Errorf("error %v; want the URL named, redacted", err)
	}
}
