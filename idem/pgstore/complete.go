package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Complete implements idem.Store with one UPDATE conditioned on the owner
// still holding the record INPROGRESS (idem.ErrLeaseLost if not).
//
// With Completion.Writes, staged with Stage (idem.ErrUnsupportedWrite for
// anything else), the UPDATE and the writes run in one transaction: BEGIN,
// the UPDATE, each write in the order staged, COMMIT. The writes run only
// if the UPDATE applied, and a write's error rolls everything back (the
// claim is left as it was; idem.Do then releases it, and the work runs
// again on the next delivery).
//
// A result stored encoded (Completion.Encoding) has its encoding in the
// data_encoding column; NULL is a result as the work returned it.
//
// A Complete that finds the record already COMPLETED by the same owner
// with the same result in the same encoding succeeds: it is a retry of a completion that was
// applied. That makes the completion safe to send again, which the store
// does, up to completeAttempts times, when the connection fails: the work
// is done and paid for. A retry after a commit whose answer was lost finds
// the completion applied and does not run the staged writes again.
//
// A result larger than the store's limit (WithMaxResultBytes) fails with
// idem.ErrResultTooLarge before anything is sent; the claim is left as it
// was.
func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if c.Key == "" {
		return &idem.Error{Op: idem.OpComplete, Err: idem.ErrNoKey}
	}
	writes, err := stagedWrites(c.Writes)
	if err != nil {
		return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: err}
	}
	var data []byte
	var omitted *int64
	var encoding *string
	if c.OmittedBytes > 0 {
		omitted = nullable(int64(c.OmittedBytes))
	} else {
		if len(c.Result) > s.maxResult {
			return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: fmt.Errorf(
				"%w: %d bytes, the store's limit is %d", idem.ErrResultTooLarge, len(c.Result), s.maxResult)}
		}
		data = c.Result
		if data == nil {
			data = []byte{} // an empty result, not a missing one
		}
		encoding = nullable(c.Encoding)
	}
	args := []any{string(c.Key), c.Owner, data, omitted, storekit.ExpirySeconds(c.ExpiresAt), encoding}
	err = s.retry(ctx, true, func() error {
		if len(writes) == 0 {
			return s.completeIn(ctx, s.db, c, args)
		}
		return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
			if err := s.completeIn(ctx, tx, c, args); err != nil {
				return err
			}
			for i, w := range writes {
				if err := w(ctx, tx); err != nil {
					return &stagedError{i: i, err: err}
				}
			}
			return nil
		})
	})
	if err == errAlreadyCompleted {
		return nil
	}
	if err != nil {
		return s.fail(idem.OpComplete, c.Key, err)
	}
	return nil
}

// querier is what a completion runs on: the pool, or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// completeIn runs the completing UPDATE. It returns errAlreadyCompleted for
// a completion already applied, and an ErrLeaseLost error when owner does
// not hold the record.
func (s *Store) completeIn(ctx context.Context, q querier, c idem.Completion, args []any) error {
	var f fence
	var omitted *int64
	var same *bool
	if err := q.QueryRow(ctx, s.sql.complete, args...).Scan(&f.applied, &f.status, &f.owner, &omitted, &same); err != nil {
		return err
	}
	if f.applied {
		return nil
	}
	if f.is(idem.StatusCompleted, c.Owner) {
		if c.OmittedBytes > 0 && omitted != nil && *omitted == int64(c.OmittedBytes) {
			return errAlreadyCompleted
		}
		if c.OmittedBytes <= 0 && omitted == nil && same != nil && *same {
			return errAlreadyCompleted
		}
	}
	return f.lost(c.Owner)
}
