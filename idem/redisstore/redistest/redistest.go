package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem/idemtest"
)

// URLEnv names the environment variable holding the server's URL, as
// scripts/with-redis.sh exports it.
const URLEnv = "IDEMQ_TEST_REDIS_URL"

// Hint says how to get a server.
const Hint = "start Redis and set " + URLEnv + " to a redis:// URL (in idemq's repository: make test, or scripts/with-redis.sh go test ./...; make deps-redis installs redis-server)"

// URL returns the server's URL, skipping the test under -short, and
// failing it otherwise, when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	return idemtest.ServerURL(t, URLEnv, Hint)
}

// Client returns a client of the server shared by the package's tests
// (made and checked once). It skips the test under -short, and fails it
// otherwise, when the server is not there.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	url := URL(t)
	c, err := idemtest.Shared(url, Connect)
	if err != nil {
		Unavailable(t, fmt.Sprintf("%s=%s does not answer: %v", URLEnv, url, err))
	}
	return c
}

// Connect makes a client of url and checks that the server answers PING
// within 10 s.
func Connect(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.PoolSize = 32
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// Unavailable skips the test under -short and fails it otherwise, saying
// why and Hint.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	idemtest.Unavailable(t, why, Hint)
}

// Prefix returns a fresh key prefix, so that tests sharing a server never
// share a key.
func Prefix(t testing.TB) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "idemq-test:" + hex.EncodeToString(b[:]) + ":"
}
