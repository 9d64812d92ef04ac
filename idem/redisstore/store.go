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
	// Scan serves List (idem.Admin), an operator's listing; Do never
	// calls it.
	Scan(ctx context.Context, cursor uint64, match string, count int64) *redis.ScanCmd
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

// Config is a Store's settings, besides the client that New takes. The
// zero value takes every default.
type Config struct {
	// Prefix is the prefix of the store's Redis keys: a record of key k
	// is kept at Prefix+k. Defaults to DefaultPrefix.
	Prefix string
	// MaxResultBytes is the largest result Complete accepts, counted as
	// stored (compressed, when idem.Do compressed it); a larger one fails
	// with idem.ErrResultTooLarge before anything is sent (and idem.Do
	// then completes the record without it). Defaults to
	// DefaultMaxResultBytes.
	MaxResultBytes int
}

// Option changes a Config.
type Option func(*Config)

// WithPrefix sets Config.Prefix.
func WithPrefix(p string) Option { return func(c *Config) { c.Prefix = p } }

// WithMaxResultBytes sets Config.MaxResultBytes.
func WithMaxResultBytes(n int) Option { return func(c *Config) { c.MaxResultBytes = n } }

// Validate reports a setting of c that cannot work, as an
// *idem.ConfigError naming its field, or nil.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	var err error
	if c.MaxResultBytes, err = idem.ByteLimit("redisstore", "MaxResultBytes", c.MaxResultBytes, DefaultMaxResultBytes); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "redisstore", Field: field, Value: value, Err: err}
}

// New returns a Store keeping records in Redis through client. It sends
// nothing. It returns an *idem.ConfigError naming the bad setting for a
// nil client, a nil option or a Config that Validate refuses.
func New(client Client, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, configError("client", "", idem.ErrNil)
	}
	if c, ok := client.(*redis.Client); ok && c == nil {
		return nil, configError("client", "", idem.ErrNil)
	}
	c, err := idem.ApplyOptions("redisstore", opts)
	if err != nil {
		return nil, err
	}
	c, err = c.resolve()
	if err != nil {
		return nil, err
	}
	return &Store{client: client, prefix: c.Prefix, maxResult: c.MaxResultBytes}, nil
}

// Key returns the Redis key that holds the record of key.
func (s *Store) Key(key idem.Key) string { return s.prefix + string(key) }
