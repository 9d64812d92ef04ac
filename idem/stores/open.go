package stores

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// Records is an opened store of records: the claims a worker makes
// (idem.Store) and the operator's reads and deletes (idem.Admin).
type Records interface {
	idem.Store
	idem.Admin
}

// Opener opens the store of one kind. Each store's module has its own
// (dynamoenv.Opener, pgenv.Opener, redisenv.Opener).
type Opener struct {
	// Kind is the kind it opens: DynamoDB, Postgres or Redis.
	Kind string
	// Open connects to the store s names through the store's New, whose
	// defaults are the store's, and returns it with the function that
	// closes its connections. It makes no request. An error of the
	// store's client about the URL never holds its password (URLError); a
	// setting the store refuses is its *idem.ConfigError.
	Open func(ctx context.Context, s Settings, c Config) (Records, func(), error)
}

// Config is how an Opener connects.
type Config struct {
	// AWS returns the AWS configuration of an AWS client: the DynamoDB
	// store's opener calls it, the others do not. The DynamoDB opener
	// refuses a nil one.
	AWS func(context.Context) (aws.Config, error)
	// Connections is how many connections each pool keeps, for as many
	// requests under way at once: the DynamoDB client's idle connections,
	// the PostgreSQL pool's MaxConns (unless the URL sets pool_max_conns)
	// and the Redis pool's size (or the URL's pool_size, when larger).
	// Defaults to 0: each client's own default.
	Connections int
}

// Open opens the store s names with the opener of its kind among openers
// (the last one given for a kind wins); the memory store (package
// memstore, records as long as the process lasts) needs none. A kind no
// opener opens is refused with an error naming IDEMQ_STORE and the
// package that would.
func Open(ctx context.Context, s Settings, c Config, openers ...Opener) (Records, func(), error) {
	kind := strings.ToLower(s.Kind)
	if kind == "" {
		kind = DynamoDB
	}
	var found *Opener
	for i := range openers {
		if openers[i].Kind == kind && openers[i].Open != nil {
			found = &openers[i]
		}
	}
	switch {
	case found != nil:
		return found.Open(ctx, s, c)
	case kind == Memory:
		st, err := memstore.New()
		if err != nil {
			return nil, nil, err
		}
		return st, func() {}, nil
	}
	return nil, nil, fmt.Errorf("%s=%s: this program was built without that store: pass its opener, %s, where it opens the store",
		storeVar, kind, openerPackages[kind])
}

// openerPackages are the packages of the stores' openers.
var openerPackages = map[string]string{
	DynamoDB: "dynamoenv.Opener() (github.com/idemq/idemq/idem/dynamostore/dynamoenv)",
	Postgres: "pgenv.Opener() (github.com/idemq/idemq/idem/pgstore/pgenv)",
	Redis:    "redisenv.Opener() (github.com/idemq/idemq/idem/redisstore/redisenv)",
}
