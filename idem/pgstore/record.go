package pgstore

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
)

// row is a record as its columns hold it.
type row struct {
	key        string
	status     string
	expiration int64
	lease      *int64
	data       []byte
	validation *string
	owner      string
	omitted    *int64
	encoding   *string
}

// scanTargets are the destinations of columns, in its order.
func (r *row) scanTargets() []any {
	return []any{&r.key, &r.status, &r.expiration, &r.lease, &r.data, &r.validation, &r.owner, &r.omitted, &r.encoding}
}

// record converts the columns to an idem.Record: the expiry from epoch
// seconds, the lease from epoch milliseconds.
func (r *row) record() idem.Record {
	rec := idem.Record{
		Key:        idem.Key(r.key),
		Status:     idem.Status(r.status),
		ExpiresAt:  time.Unix(r.expiration, 0),
		Result:     r.data,
		Owner:      r.owner,
		LeaseUntil: time.Time{},
	}
	if r.lease != nil {
		rec.LeaseUntil = time.UnixMilli(*r.lease)
	}
	if r.validation != nil {
		rec.Fingerprint = *r.validation
	}
	if r.encoding != nil {
		rec.Encoding = *r.encoding
	}
	if r.omitted != nil && *r.omitted > 0 {
		rec.OmittedBytes = int(*r.omitted)
	}
	if rec.Status == idem.StatusCompleted && rec.OmittedBytes == 0 && rec.Result == nil {
		rec.Result = []byte{}
	}
	return rec
}

// scanRecord reads one record row.
func scanRecord(rows pgx.Row) (idem.Record, error) {
	var r row
	if err := rows.Scan(r.scanTargets()...); err != nil {
		return idem.Record{}, err
	}
	return r.record(), nil
}

// nullable returns nil for the zero value, so the column is NULL.
func nullable[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
