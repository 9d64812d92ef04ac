package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/internal/storekit"
)

// DeleteExpired deletes up to limit records that have expired at now (the
// same test a claim makes: expiration < now in whole seconds), oldest
// first, and returns how many it deleted. It is one DELETE, bounded by
// limit, that uses the index on expiration and skips rows a claim holds
// locked. PostgreSQL has no TTL: call it from a scheduled job, in a loop
// until it deletes fewer than limit. Claims never rely on it: an expired
// record still in the table is claimable.
//
// Pass the workers' clock (time.Now() where they use the system clock):
// the store has none (see the package doc). A record is deleted only once
// it has expired by now, so a clock behind the workers' deletes late,
// never early. A limit that is not positive is an *idem.ConfigError
// naming it, and nothing is sent.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time, limit int) (int64, error) {
	if limit <= 0 {
		return 0, configError("limit", fmt.Sprint(limit), errors.New("must be positive"))
	}
	tag, err := s.db.Exec(ctx, s.sql.deleteExpired, now.Unix(), limit)
	if err != nil {
		return 0, s.fail(storekit.OpCleanup, "", err)
	}
	return tag.RowsAffected(), nil
}
