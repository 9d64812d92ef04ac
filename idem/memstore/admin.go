package memstore

import (
	"context"
	"slices"

	"github.com/idemq/idemq/idem"
)

var _ idem.Admin = (*Store)(nil)

// List implements idem.Admin: the records in key order, the cursor the
// last key of the page.
func (s *Store) List(ctx context.Context, req idem.ListRequest) (idem.ListPage, error) {
	limit, err := req.PageLimit("memstore")
	if err != nil {
		return idem.ListPage{}, err
	}
	if err := ctx.Err(); err != nil {
		return idem.ListPage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]idem.Key, 0, len(s.records))
	for k := range s.records {
		if string(k) > req.Cursor {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var page idem.ListPage
	for _, k := range keys {
		rec := s.records[k]
		if !req.Selects(rec) {
			continue
		}
		if len(page.Records) == limit {
			page.Next = string(page.Records[limit-1].Key)
			break
		}
		page.Records = append(page.Records, clone(rec))
	}
	return page, nil
}

// Delete implements idem.Admin.
func (s *Store) Delete(ctx context.Context, d idem.Deletion) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[d.Key]
	if !ok || !d.Matches(rec) {
		return &idem.RecordChangedError{Key: d.Key, Status: rec.Status, Owner: rec.Owner, LeaseUntil: rec.LeaseUntil}
	}
	delete(s.records, d.Key)
	return nil
}
