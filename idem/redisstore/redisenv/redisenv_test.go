package redisenv_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/redisstore/redisenv"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/idem/stores"
)

// The opener opens IDEMQ_STORE_URL's server with IDEMQ_TABLE and ":" as
// the key prefix: a record claimed through it is under that prefix.
func TestOpener(t *testing.T) {
	t.Parallel()
	client := redistest.Client(t)
	prefix := strings.TrimSuffix(redistest.Prefix(t), ":")
	st, closeStore, err := stores.Open(context.Background(), stores.Settings{Kind: stores.Redis, URL: redistest.URL(t), Table: prefix},
		stores.Config{Connections: 3}, redisenv.Opener())
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	now := time.Now()
	if _, err := st.Claim(context.Background(), idem.ClaimRequest{Key: "ns#k", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	keys, err := client.Keys(context.Background(), prefix+":*").Result()
	if err != nil || len(keys) != 1 {
		t.Errorf("keys under %s: %q, %v; want the claim's", prefix+":", keys, err)
	}
}

// A URL go-redis refuses is reported without its password.
func TestOpenerRedacts(t *testing.T) {
	t.Parallel()
	_, _, err := redisenv.Opener().Open(context.Background(), stores.Settings{Kind: stores.Redis,
		URL: "rediss://u:s3cr3t@127.0.0.1:6379/0?dial_timeout=s3cr3t"}, stores.Config{})
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "IDEMQ_STORE_URL=rediss://u:xxxxx@127.0.0.1:6379/0?dial_timeout=xxxxx") {
		t.Errorf("error %v; want the URL named, redacted", err)
	}
}
