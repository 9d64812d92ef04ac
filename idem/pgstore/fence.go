package pgstore

import (
	"context"
	"errors"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Release implements idem.Store with one DELETE conditioned on the owner
// still holding the record INPROGRESS (idem.ErrLeaseLost if not).
func (s *Store) Release(ctx context.Context, key idem.Key, owner string) error {
	if key == "" {
		return &idem.Error{Op: idem.OpRelease, Err: idem.ErrNoKey}
	}
	return s.fenced(ctx, idem.OpRelease, s.sql.release, key, owner)
}

// Extend implements idem.Store with one UPDATE of the lease and the expiry
// conditioned on the owner still holding the record INPROGRESS
// (idem.ErrLeaseLost if not). A zero LeaseUntil removes the lease: the
// claim is then held until the record expires; a zero ExpiresAt leaves
// the expiry as it is.
func (s *Store) Extend(ctx context.Context, e idem.Extension) error {
	if e.Key == "" {
		return &idem.Error{Op: idem.OpExtend, Err: idem.ErrNoKey}
	}
	var lease, expiry *int64
	if !e.LeaseUntil.IsZero() {
		lease = nullable(e.LeaseUntil.UnixMilli())
	}
	if !e.ExpiresAt.IsZero() {
		expiry = nullable(storekit.ExpirySeconds(e.ExpiresAt))
	}
	return s.fenced(ctx, idem.OpExtend, s.sql.extend, e.Key, e.Owner, lease, expiry)
}

// fenced runs a write made by the fenced function. It is sent again only
// when its connection failed before the statement went out: a release
// applied twice would report its own success as a lost lease.
func (s *Store) fenced(ctx context.Context, op idem.Op, sql string, key idem.Key, owner string, more ...any) error {
	err := s.retry(ctx, false, func() error {
		var f fence
		if err := s.db.QueryRow(ctx, sql, append([]any{string(key), owner}, more...)...).Scan(&f.applied, &f.status, &f.owner); err != nil {
			return err
		}
		if !f.applied {
			return f.lost(owner)
		}
		return nil
	})
	if err != nil {
		return s.fail(op, key, err)
	}
	return nil
}

// fence is what a fenced statement says: whether it applied, and the
// status and owner of the row it found (nil: no row).
type fence struct {
	applied bool
	status  *string
	owner   *string
}

func (f fence) is(status idem.Status, owner string) bool {
	return f.status != nil && *f.status == string(status) && f.owner != nil && *f.owner == owner
}

// lost is idem.ErrLeaseLost saying why owner no longer holds the record.
func (f fence) lost(owner string) error {
	var status idem.Status
	var holder string
	if f.status != nil {
		status = idem.Status(*f.status)
	}
	if f.owner != nil {
		holder = *f.owner
	}
	return &idem.LeaseLostError{Status: status, Holder: holder, Owner: owner}
}

// errAlreadyCompleted says a completion was found applied: a success.
var errAlreadyCompleted = errors.New("pgstore: already completed")
