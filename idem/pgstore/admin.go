package pgstore

import (
	"context"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

var _ idem.Admin = (*Store)(nil)

// List implements idem.Admin with one SELECT, keyset-paged by key (the
// primary key's index): the cursor is the last key of the page.
func (s *Store) List(ctx context.Context, req idem.ListRequest) (idem.ListPage, error) {
	limit, err := req.PageLimit("pgstore")
	if err != nil {
		return idem.ListPage{}, err
	}
	var lease, expiry *int64
	if !req.LeaseBefore.IsZero() {
		lease = nullable(req.LeaseBefore.UnixMilli())
	}
	if !req.ExpiresBefore.IsZero() {
		expiry = nullable(storekit.ExpirySeconds(req.ExpiresBefore))
	}
	unscoped, scoped := req.KeyPrefixes()
	var page idem.ListPage
	err = s.retry(ctx, true, func() error {
		page = idem.ListPage{}
		rows, err := s.db.Query(ctx, s.sql.list, req.Cursor, string(req.Status), lease, expiry, limit+1, unscoped, scoped)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			rec, err := scanRecord(rows)
			if err != nil {
				return err
			}
			if len(page.Records) == limit {
				page.Next = string(page.Records[limit-1].Key)
				break
			}
			page.Records = append(page.Records, rec)
		}
		return rows.Err()
	})
	if err != nil {
		return idem.ListPage{}, s.fail(storekit.OpList, "", err)
	}
	return page, nil
}

// Delete implements idem.Admin with one DELETE conditioned on the
// record's status, owner and lease being those read.
func (s *Store) Delete(ctx context.Context, d idem.Deletion) error {
	if d.Key == "" {
		return &idem.Error{Op: storekit.OpDelete, Err: idem.ErrNoKey}
	}
	var lease *int64
	if !d.LeaseUntil.IsZero() {
		lease = nullable(d.LeaseUntil.UnixMilli())
	}
	err := s.retry(ctx, false, func() error {
		var applied bool
		var status, owner *string
		var found *int64
		if err := s.db.QueryRow(ctx, s.sql.delete, string(d.Key), string(d.Status), d.Owner, lease).Scan(&applied, &status, &owner, &found); err != nil {
			return err
		}
		if applied {
			return nil
		}
		changed := &idem.RecordChangedError{Key: d.Key}
		if status != nil {
			changed.Status = idem.Status(*status)
		}
		if owner != nil {
			changed.Owner = *owner
		}
		if found != nil {
			changed.LeaseUntil = time.UnixMilli(*found)
		}
		return changed
	})
	if err != nil {
		return s.fail(storekit.OpDelete, d.Key, err)
	}
	return nil
}
