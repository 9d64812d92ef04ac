package redisenv

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/stores"
)

// Opener opens the Redis store (IDEMQ_STORE=redis): a client of
// IDEMQ_STORE_URL whose pool holds Config.Connections (or the URL's
// pool_size, when larger), and redisstore.New with IDEMQ_TABLE and ":" as
// the key prefix (none when unset). It makes no request.
func Opener() stores.Opener {
	return stores.Opener{Kind: stores.Redis, Open: open}
}

func open(_ context.Context, s stores.Settings, c stores.Config) (stores.Records, func(), error) {
	ro, err := redis.ParseURL(s.URL)
	if err != nil {
		return nil, nil, stores.URLError(s.URL, err)
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
}
