package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Get returns the record of key as stored, expired or not, and whether
// there is one. It is a plain read, for tools and tests: claims never read
// first.
func (s *Store) Get(ctx context.Context, key idem.Key) (idem.Record, bool, error) {
	rec, err := scanRecord(s.db.QueryRow(ctx, s.sql.get, string(key)))
	if errors.Is(err, pgx.ErrNoRows) {
		return idem.Record{}, false, nil
	}
	if err != nil {
		return idem.Record{}, false, s.fail(storekit.OpGet, key, err)
	}
	return rec, true, nil
}
