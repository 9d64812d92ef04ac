package pipeline

import (
	"context"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// Backend names the store the workers keep their records in
// (IDEMQ_STORE).
type Backend string

// The backends.
const (
	DynamoDB Backend = "dynamodb" // DynamoDB Local, behind StoreProxy (HTTP)
	Postgres Backend = "postgres" // PostgreSQL, behind a netfault proxy (TCP)
	Redis    Backend = "redis"    // Redis, behind a netfault proxy (TCP)
)

// Backends are every backend, in the order the runs take them.
var Backends = []Backend{DynamoDB, Postgres, Redis}

// ParseBackend returns the backend named s.
func ParseBackend(s string) (Backend, error) {
	for _, b := range Backends {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("pipeline: unknown store %q (want dynamodb, postgres or redis)", s)
}

// records is a store that also reads a record as stored, as each store's
// Get does: the check reads every key's record with it, and replays each
// completed one (idem.Do) as a duplicate would.
type records interface {
	idem.Store
	Get(ctx context.Context, key idem.Key) (idem.Record, bool, error)
}

// storeRun is a run's store: the workers' environment for it, how the
// check reads records, and what its fault proxy counted.
type storeRun struct {
	env     []string
	records records
	counts  func() map[string]int
}
