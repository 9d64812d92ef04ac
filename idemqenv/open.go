package idemqenv

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

// Opener opens the store of one IDEMQ_STORE value. Each store's module
// has its own (dynamoenv.Opener, pgenv.Opener, redisenv.Opener), so that
// a program pays only for the drivers it names; MemoryOpener is the
// memory store's.
type Opener struct {
	// Store is the IDEMQ_STORE value it opens: StoreDynamoDB,
	// StorePostgres, StoreRedis or StoreMemory.
	Store string
	// Open connects to the store s names (as ReadFor checked it) through
	// the store's New, whose defaults are the store's, and returns it with
	// the function that closes its connections. An error of the store's
	// client about the URL never holds its password (URLError); a setting
	// the store refuses is its *idem.ConfigError.
	Open func(ctx context.Context, s StoreSettings, c OpenConfig) (Records, func(), error)
}

// OpenConfig is how an Opener connects.
type OpenConfig struct {
	// AWS returns the AWS configuration of an AWS client: the DynamoDB
	// store's opener calls it, the others do not. The DynamoDB opener
	// refuses a nil one.
	AWS func(context.Context) (aws.Config, error)
	// Connections is how many connections each pool keeps, for as many
	// requests under way at once (Settings.Connections): the DynamoDB
	// client's idle connections, the PostgreSQL pool's MaxConns (unless
	// the URL sets pool_max_conns) and the Redis pool's size (or the
	// URL's pool_size, when larger). Defaults to 0: each client's own
	// default.
	Connections int
}

// MemoryOpener opens the memory store (package memstore), whose records
// last as long as the process: for local runs and tests.
func MemoryOpener() Opener {
	return Opener{Store: StoreMemory,
		Open: func(context.Context, StoreSettings, OpenConfig) (Records, func(), error) {
			st, err := memstore.New()
			if err != nil {
				return nil, nil, err
			}
			return st, func() {}, nil
		}}
}

// Open opens the store s names with the opener of its kind among openers
// (the last one given for a kind wins). A kind no opener opens is refused
// with an error naming IDEMQ_STORE and the package that would.
func Open(ctx context.Context, s StoreSettings, c OpenConfig, openers ...Opener) (Records, func(), error) {
	kind := strings.ToLower(s.Kind)
	if kind == "" {
		kind = StoreDynamoDB
	}
	var found *Opener
	for i := range openers {
		if openers[i].Store == kind && openers[i].Open != nil {
			found = &openers[i]
		}
	}
	if found == nil {
		return nil, nil, fmt.Errorf("%s=%s: this program was built without that store: pass its opener, %s, where it opens the store",
			Store, kind, storePackages[kind])
	}
	return found.Open(ctx, s, c)
}

// storePackages are the packages of the stores' openers.
var storePackages = map[string]string{
	StoreDynamoDB: "dynamoenv.Opener() (github.com/idemq/idemq/idem/dynamostore/dynamoenv)",
	StorePostgres: "pgenv.Opener() (github.com/idemq/idemq/idem/pgstore/pgenv)",
	StoreRedis:    "redisenv.Opener() (github.com/idemq/idemq/idem/redisstore/redisenv)",
	StoreMemory:   "idemqenv.MemoryOpener()",
}
