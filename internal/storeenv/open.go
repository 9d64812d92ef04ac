package storeenv

import (
	"context"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/redisstore"
)

// Records is an opened store of records: the claims the worker makes
// (idem.Store) and the operator's reads and deletes (idem.Admin).
type Records interface {
	idem.Store
	idem.Admin
}

// Config is how Open connects.
type Config struct {
	// LoadAWS returns the AWS configuration of the DynamoDB client; Open
	// calls it only for the dynamodb store. Defaults to the SDK's default
	// configuration (config.LoadDefaultConfig).
	LoadAWS func(context.Context) (aws.Config, error)
	// Connections is how many connections each pool keeps, for as many
	// requests under way at once: the DynamoDB client's idle connections,
	// the PostgreSQL pool's MaxConns (unless the URL sets pool_max_conns)
	// and the Redis pool's size (or the URL's pool_size, when larger).
	// Defaults to 0: each client's own default.
	Connections int
}

// Option sets a field of Config.
type Option func(*Config)

// WithAWS sets Config.LoadAWS.
func WithAWS(load func(context.Context) (aws.Config, error)) Option {
	return func(c *Config) { c.LoadAWS = load }
}

// WithConnections sets Config.Connections.
func WithConnections(n int) Option {
	return func(c *Config) { c.Connections = n }
}

// Open connects to the store s names (checked with Check), through the
// store's New, whose defaults are the store's, and returns it with the
// function that closes its connections. On Redis the table is the key
// prefix, ended with ":". An error from the store's client about the URL
// never holds its password (URLError); a setting the store refuses is its
// *idem.ConfigError.
func Open(ctx context.Context, s Settings, opts ...Option) (Records, func(), error) {
	c := Config{LoadAWS: func(ctx context.Context) (aws.Config, error) { return awsconfig.LoadDefaultConfig(ctx) }}
	for _, o := range opts {
		o(&c)
	}
	switch s.Store {
	case DynamoDB, "":
		cfg, err := c.LoadAWS(ctx)
		if err != nil {
			return nil, nil, err
		}
		client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(c.Connections), func(o *dynamodb.Options) {
			if s.DynamoDBEndpoint != "" {
				o.BaseEndpoint = aws.String(s.DynamoDBEndpoint)
			}
		})
		st, err := dynamostore.New(client, s.Table)
		if err != nil {
			return nil, nil, err
		}
		return st, func() {}, nil
	case Postgres:
		pc, err := PostgresPoolConfig(s.URL, c.Connections)
		if err != nil {
			return nil, nil, URLError(s.URL, err)
		}
		pool, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return nil, nil, URLError(s.URL, err)
		}
		st, err := pgstore.New(pool, s.Table)
		if err != nil {
			pool.Close()
			return nil, nil, err
		}
		return st, pool.Close, nil
	case Redis:
		ro, err := redis.ParseURL(s.URL)
		if err != nil {
			return nil, nil, URLError(s.URL, err)
		}
		ro.PoolSize = max(ro.PoolSize, c.Connections)
		var prefix []redisstore.Option
		if s.Table != "" {
			prefix = append(prefix, redisstore.WithPrefix(s.Table+":"))
		}
		client := redis.NewClient(ro)
		st, err := redisstore.New(client, prefix...)
		if err != nil {
			_ = client.Close()
			return nil, nil, err
		}
		return st, func() { _ = client.Close() }, nil
	case Memory:
		st, err := memstore.New()
		if err != nil {
			return nil, nil, err
		}
		return st, func() {}, nil
	default:
		return nil, nil, fmt.Errorf("%s=%q: want %s", Store, s.Store, oneOf(stores))
	}
}

// PostgresPoolConfig parses the postgres store's URL and sizes its pool
// to conns connections (none: pgxpool's default, max(4, CPUs)), unless
// the URL sets pool_max_conns: PostgreSQL's own max_connections (100 by
// default) is shared by every worker, so an operator who has counted them
// has the last word.
func PostgresPoolConfig(storeURL string, conns int) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(storeURL)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(storeURL)
	if err != nil {
		return nil, err
	}
	if conns > 0 && !u.Query().Has("pool_max_conns") {
		if conns > 1<<31-1 {
			return nil, fmt.Errorf("%d connections are more than a pool can hold", conns)
		}
		pc.MaxConns = int32(conns)
	}
	return pc, nil
}
