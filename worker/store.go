package worker

import (
	"context"
	"fmt"

	"github.com/idemq/idemq/idem/dynamostore/dynamoenv"
	"github.com/idemq/idemq/idemqenv"
)

// checker is a store that can check, at start-up, that its table has its
// shape: pgstore.Store.
type checker interface {
	Check(ctx context.Context) error
}

// OpenStore opens the store s names, as the worker opens it: with the
// DynamoDB and memory stores' openers and openers, through
// idemqenv.Open, then checks what the store can check without writing: a
// PostgreSQL table's shape, with two reads of the catalog (a table
// missing or of another shape is pgstore.ErrTableShape; the worker never
// creates or changes one, which is a migration's business:
// pgstore.CreateTable, or the reference worker's -migrate). A setting the
// store refuses is named after its variable; an error never holds the
// store's password. It returns the store with the function that closes
// its connections.
func OpenStore(ctx context.Context, s idemqenv.StoreSettings, c idemqenv.OpenConfig, openers ...idemqenv.Opener) (idemqenv.Records, func(), error) {
	all := append([]idemqenv.Opener{dynamoenv.Opener(), idemqenv.MemoryOpener()}, openers...)
	st, closeStore, err := idemqenv.Open(ctx, s, c, all...)
	if err != nil {
		return nil, nil, idemqenv.Redact(idemqenv.SettingError(err), s.URL)
	}
	if ch, ok := st.(checker); ok {
		// Only a look at the catalog: creating the table needs DDL rights
		// and takes locks, which is a migration's business, not every
		// cold start's.
		if err := ch.Check(ctx); err != nil {
			closeStore()
			err = fmt.Errorf("%s=%s on %s: %w", idemqenv.Table, s.Table, idemqenv.StoreURL, err)
			return nil, nil, idemqenv.Redact(err, s.URL)
		}
	}
	return st, closeStore, nil
}
