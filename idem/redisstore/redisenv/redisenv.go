package redisenv

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idemqenv"
)

// Opener opens the Redis store (IDEMQ_STORE=redis): a client of
// IDEMQ_STORE_URL whose pool holds OpenConfig.Connections (or the URL's
// pool_size, when larger), and redisstore.New with IDEMQ_TABLE and ":" as
// the key prefix (none when unset). It makes no request.
func Opener() idemqenv.Opener {
	return idemqenv.Opener{Store: idemqenv.StoreRedis, Open: open}
}

func open(_ context.Context, s idemqenv.StoreSettings, c idemqenv.OpenConfig) (idemqenv.Records, func(), error) {
	ro, err := redis.ParseURL(s.URL)
	if err != nil {
		return nil, nil, idemqenv.URLError(s.URL, err)
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
