package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
)

// Client is the part of a go-redis client the store calls. *redis.Client,
// *redis.ClusterClient and *redis.Ring satisfy it.
type Client interface {
	redis.Scripter
	HGetAll(ctx context.Context, key string) *redis.MapStringStringCmd
}

var (
	_ Client     = (*redis.Client)(nil)
	_ Client     = (*redis.ClusterClient)(nil)
	_ idem.Store = (*Store)(nil)
)

// DefaultMaxResultBytes is the largest result a Store keeps unless told
// otherwise: 512 KiB. Redis takes values up to 512 MB, but a record lives
// in the server's memory and a duplicate's one round trip carries the
// result back; results this large belong elsewhere (store a pointer).
const DefaultMaxResultBytes = 512 << 10

// DefaultPrefix is the prefix of the store's keys unless told otherwise.
const DefaultPrefix = "idemq:"

// Store is an idem.Store kept in Redis, one hash per key. Each method is
// one Lua script that Redis runs atomically, so any number of workers can
// share a server. It is safe for concurrent use.
type Store struct {
	client    Client
	prefix    string
	maxResult int
}

// Option configures a Store.
type Option func(*Store)

// WithPrefix sets the prefix of the store's Redis keys: a record of key k
// is kept at prefix+k. Defaults to DefaultPrefix.
func WithPrefix(p string) Option { return func(s *Store) { s.prefix = p } }

// WithMaxResultBytes sets the largest result Complete accepts, counted as
// stored (compressed, when idem.Do compressed it); a larger one fails with
// idem.ErrResultTooLarge before anything is sent (and idem.Do then
// completes the record without it). Defaults to DefaultMaxResultBytes.
func WithMaxResultBytes(n int) Option { return func(s *Store) { s.maxResult = n } }

// New returns a Store keeping records in Redis through client. It sends
// nothing. It panics if client is nil or the result limit is not positive.
func New(client Client, opts ...Option) *Store {
	if client == nil {
		panic("redisstore: nil client")
	}
	if c, ok := client.(*redis.Client); ok && c == nil {
		panic("redisstore: nil client")
	}
	s := &Store{client: client, prefix: DefaultPrefix, maxResult: DefaultMaxResultBytes}
	for _, opt := range opts {
		opt(s)
	}
	if s.maxResult <= 0 {
		panic("redisstore: WithMaxResultBytes must be positive")
	}
	return s
}

// Key returns the Redis key that holds the record of key.
func (s *Store) Key(key idem.Key) string { return s.prefix + string(key) }
