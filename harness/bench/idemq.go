package bench

import (
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/request"
)

// cacheBytes bounds the local cache of the cache-hit scenario: far more
// than its records need, so the bound never evicts.
const cacheBytes = 64 << 20

// idemqHandler is idemq as a user wires it: handler.New over the
// DynamoDB store, with its defaults (the key from the body's
// idempotency_key, the whole body as the payload fingerprint, one summary
// log line per batch) except the namespace (outside Lambda there is no
// function name), the concurrency, and a local cache of cacheEntries keys
// when that is not 0. The log line is formatted and discarded, so its cost
// counts.
func idemqHandler(api *dynamodb.Client, table string, work handler.Func, concurrency, cacheEntries int) (Handler, error) {
	opts := []handler.Option{
		handler.WithRequest(request.Identity{Namespace: "bench"}),
		handler.WithConcurrency(concurrency),
		handler.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))),
	}
	if cacheEntries > 0 {
		opts = append(opts, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = cacheEntries, cacheBytes })
	}
	store, err := dynamostore.New(api, table)
	if err != nil {
		return nil, err
	}
	return handler.New(store, work, opts...)
}
