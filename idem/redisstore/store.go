package redisstore

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
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

// defaultMaxResultBytes is the largest result a Store keeps unless told
// otherwise: 512 KiB. Redis takes values up to 512 MB, but a record lives
// in the server's memory and a duplicate's one round trip carries the
// result back; results this large belong elsewhere (store a pointer).
const defaultMaxResultBytes = 512 << 10

// defaultPrefix is the prefix of the store's keys unless told otherwise.
const defaultPrefix = "idemq:"

// Store is an idem.Store kept in Redis, one hash per key. Each method is
// one Lua script that Redis runs atomically, so any number of workers can
// share a server. It is safe for concurrent use.
type Store struct {
	client    Client
	prefix    string
	maxResult int
}

// Config is a Store's settings, besides the client that New takes,
// declared, defaulted and checked here as every idemq package does it
// (docs/options.md): a zero field is its default, a negative one is
// refused, the options only set fields, and WithConfig passes a Config
// whole. The zero value takes every default.
type Config struct {
	// Prefix is the prefix of the store's Redis keys: a record of key k
	// is kept at Prefix+k. Defaults to "idemq:".
	Prefix string
	// MaxResultBytes is the largest result Complete accepts, counted as
	// stored (compressed, when idem.Do compressed it); a larger one fails
	// with idem.ErrResultTooLarge before anything is sent (and idem.Do
	// then completes the record without it). Defaults to
	// defaultMaxResultBytes.
	MaxResultBytes int
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithPrefix sets Config.Prefix, the prefix of the store's Redis keys.
// Defaults to "idemq:".
func WithPrefix(p string) Option { return func(c *Config) { c.Prefix = p } }

// WithMaxResultBytes sets Config.MaxResultBytes, the largest result
// Complete accepts. Defaults to 512 KiB.
func WithMaxResultBytes(n int) Option { return func(c *Config) { c.MaxResultBytes = n } }

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. It is the resolve step New runs, without its
// result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	if c.Prefix == "" {
		c.Prefix = defaultPrefix
	}
	var err error
	if c.MaxResultBytes, err = optkit.ByteLimit("redisstore", "MaxResultBytes", c.MaxResultBytes, defaultMaxResultBytes); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "redisstore", Field: field, Value: value, Err: err}
}

// New returns a Store keeping records in Redis through client. It sends
// nothing. It returns an error joining an *idem.ConfigError for every bad
// setting (joined): a nil client, a nil option, a setting
// Validate refuses.
func New(client Client, opts ...Option) (*Store, error) {
	var errs []error
	if c, ok := client.(*redis.Client); client == nil || ok && c == nil {
		errs = append(errs, configError("client", "", optkit.ErrNil))
	}
	c, err := optkit.ApplyOptions("redisstore", opts)
	errs = append(errs, err)
	c, err = c.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return &Store{client: client, prefix: c.Prefix, maxResult: c.MaxResultBytes}, nil
}

// Key returns the Redis key that holds the record of key.
func (s *Store) Key(key idem.Key) string { return s.prefix + string(key) }
