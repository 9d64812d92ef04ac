package redisstore_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
)

// bundle is one test's client, store (with a key prefix of its own) and
// time.
type bundle struct {
	client *redis.Client
	store  *redisstore.Store
	now    time.Time
}

func setup(t *testing.T, opts ...redisstore.Option) *bundle {
	t.Helper()
	t.Parallel()
	client := redistest.Client(t)
	opts = append([]redisstore.Option{redisstore.WithPrefix(redistest.Prefix(t))}, opts...)
	return &bundle{client: client, store: must(redisstore.New(client, opts...)), now: time.Now().Truncate(time.Second)}
}

// Databases of the test server that listings use on their own, so that
// no other test's keys resize the table they SCAN: a table that shrinks
// between two pages may make SCAN miss a key of the page's last batch
// (Store.List), and other packages' tests (the real pipeline) churn
// database 0.
const (
	dbConformance   = 1
	dbCrossBatches  = 2
	dbResumeListing = 3
)

// ownDB is a client of the test server on database db.
func ownDB(t *testing.T, db int) *redis.Client {
	t.Helper()
	return newClient(t, "", func(o *redis.Options) { o.DB = db })
}

// counter is a go-redis hook that counts the commands a client sends:
// one round trip each (go-redis's own retries aside).
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

func (c *counter) take() int64 { return c.n.Swap(0) }

// newClient makes a client of its own on addr (host:port of the test
// server unless given), with the options changed by opt.
func newClient(t *testing.T, addr string, opt func(*redis.Options)) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	if addr != "" {
		opts.Addr = addr
	}
	if opt != nil {
		opt(opts)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// serverAddr is the test server's host:port.
func serverAddr(t *testing.T) string {
	t.Helper()
	opts, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
		t.Fatal(err)
	}
	return opts.Addr
}
