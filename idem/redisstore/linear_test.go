package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/lintest"
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
		Open: func(t *testing.T, faults *idemtest.Faults) idem.Store {
			p, err := netfault.Start(serverAddr(t), lintest.Filter(faults))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			client := newClient(t, p.Addr(), func(o *redis.Options) { o.PoolSize = 32 })
			return must(redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t))))
		},
	})
}
