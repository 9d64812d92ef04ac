// Package linearize_test checks redisstore's histories (here, not in
// redisstore's own tests, so that a user of redisstore never needs the
// checker).
package linearize_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/internal/lintest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/netfault"
)

// The store's histories under concurrent clients, checked against the
// model of a key's record: through a proxy that loses answers after Redis
// ran the script (go-redis sends it again) and refuses others, with
// timeouts, pauses past the lease and clocks within the bound (make
// linearize adds long runs, restarts of a server that keeps an
// append-only file, and clocks beyond the bound).
func TestLinearizable(t *testing.T) {
	t.Parallel()
	lintest.Run(t, lintest.Store{
		Name:       "redis",
		Layer:      true,
		RestartEnv: "IDEMQ_TEST_REDIS_RESTART",
		Open: func(t *testing.T, faults *linearize.Faults) idem.Store {
			opts, err := redis.ParseURL(redistest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			p, err := netfault.Start(opts.Addr, lintest.Filter(faults))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			opts.Addr, opts.PoolSize = p.Addr(), 32
			client := redis.NewClient(opts)
			t.Cleanup(func() { _ = client.Close() })
			s, err := redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t)))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}
