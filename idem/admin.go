package idem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/internal/storekit"
)

// Admin is what an operator's tool (the idemq command, cmd/idemq) asks of
// a store besides Store: read one record, list records page by page, and
// delete one record fenced by what was read. dynamostore, pgstore,
// redisstore and memstore implement it; Do never calls it. The
// conformance suite (idemtest.Run) checks it on every store that has it.
type Admin interface {
	// Get reads the record of key as stored, expired or not; ok is false
	// when there is none.
	Get(ctx context.Context, key Key) (rec Record, ok bool, err error)
	// List returns one page of the records that req selects, expired or
	// not, in an order of the store's own, and the cursor of the next
	// page. A page holds at most req.Limit records, and may hold fewer
	// (none at all) with a Next to go on: only an empty Next ends the
	// listing. A record written while the pages are read may be listed
	// or not; one that stays the whole time is listed at least once (on
	// Redis, whose SCAN may return a key twice while the server resizes
	// its table, possibly twice). On DynamoDB it is a Scan (it reads the whole table, and is
	// billed for every item it reads, selected or not).
	List(ctx context.Context, req ListRequest) (ListPage, error)
	// Delete deletes the record of d.Key if it is still the one read:
	// the same Status, Owner and LeaseUntil. A record that changed since
	// (claimed again, completed, its lease renewed), or is gone, is left
	// as it is, and the error is a *RecordChangedError saying what
	// holds the key.
	Delete(ctx context.Context, d Deletion) error
}

// defaultListLimit is the page size of ListRequest.Limit 0.
const defaultListLimit = 100

// ListRequest selects the records of a page of Admin.List. Every filter
// set must hold; the zero value selects every record.
type ListRequest struct {
	// Status keeps the records of that status. Defaults to both.
	Status Status
	// LeaseBefore keeps the IN_PROGRESS records whose lease ended before
	// it, in whole milliseconds, as a claim judges it (a record without a
	// lease is not kept): the claims a worker abandoned. Defaults to no
	// filter (zero).
	LeaseBefore time.Time
	// ExpiresBefore keeps the records whose expiry is before it, in
	// whole seconds. Defaults to no filter (zero).
	ExpiresBefore time.Time
	// Namespace keeps the records whose key was made in it
	// (Key.InNamespace): by ClientKey, NaturalKey or ScopedKey, with a
	// scope or without. Defaults to every namespace ("").
	Namespace string
	// Limit is the most records a page holds. Defaults to
	// 100 (0); a negative Limit is an *idem.ConfigError.
	Limit int
	// Cursor is the Next of the page before; "" starts at the beginning.
	Cursor string
}

// ListPage is one page of Admin.List.
type ListPage struct {
	Records []Record
	// Next is the cursor of the next page (ListRequest.Cursor); "" when
	// this page is the last.
	Next string
}

// Deletion is an operator's delete of one record (Admin.Delete), fenced
// by the record as it was read: its Status, its Owner and its
// LeaseUntil (zero: none).
type Deletion struct {
	Key        Key
	Status     Status
	Owner      string
	LeaseUntil time.Time
}

// DeletionOf is the Deletion of rec as it was read.
func DeletionOf(rec Record) Deletion {
	return Deletion{Key: rec.Key, Status: rec.Status, Owner: rec.Owner, LeaseUntil: rec.LeaseUntil}
}

// ErrRecordChanged means an Admin.Delete found the record changed since
// it was read (another claim, a completion, a renewed lease) or gone, and
// deleted nothing. Match it with errors.Is; errors.As finds the
// *RecordChangedError.
var ErrRecordChanged = errors.New("idem: the record changed since it was read")

// RecordChangedError is ErrRecordChanged with what the store found: the
// record's Status, Owner and LeaseUntil, Status "" when there was none.
type RecordChangedError struct {
	Key        Key
	Status     Status // "" when the record is gone
	Owner      string
	LeaseUntil time.Time
}

// Error says what holds the key now.
func (e *RecordChangedError) Error() string {
	if e.Status == "" {
		return fmt.Sprintf("%s: key %q: the record is gone", ErrRecordChanged, string(e.Key))
	}
	return fmt.Sprintf("%s: key %q is %s, owner %q", ErrRecordChanged, string(e.Key), e.Status, e.Owner)
}

// Is makes errors.Is(err, ErrRecordChanged) true.
func (e *RecordChangedError) Is(target error) bool { return target == ErrRecordChanged }

// Matches reports whether rec, as a store read it, is the record d was
// made from: the test every store's Delete makes, in the store.
func (d Deletion) Matches(rec Record) bool {
	return rec.Status == d.Status && rec.Owner == d.Owner && rec.LeaseUntil.UnixMilli() == d.LeaseUntil.UnixMilli() &&
		rec.LeaseUntil.IsZero() == d.LeaseUntil.IsZero()
}

// Selects reports whether req selects rec: the filter every store's List
// applies, in the store or after reading.
func (req ListRequest) Selects(rec Record) bool {
	if req.Status != "" && rec.Status != req.Status {
		return false
	}
	if !req.LeaseBefore.IsZero() && (rec.Status != StatusInProgress || rec.LeaseUntil.IsZero() ||
		rec.LeaseUntil.UnixMilli() >= req.LeaseBefore.UnixMilli()) {
		return false
	}
	if !req.ExpiresBefore.IsZero() && storekit.ExpirySeconds(rec.ExpiresAt) >= storekit.ExpirySeconds(req.ExpiresBefore) {
		return false
	}
	if req.Namespace != "" && !rec.Key.InNamespace(req.Namespace) {
		return false
	}
	return true
}

// KeyPrefixes returns what the key of each record req.Namespace selects
// starts with, for a store that filters by key in its own query: the
// namespace as keys hold it (escaped), then "#" for a key without a
// scope, or ":" for a scoped key (which holds a "#" after it). Both are
// "" when Namespace is.
func (req ListRequest) KeyPrefixes() (unscoped, scoped string) {
	if req.Namespace == "" {
		return "", ""
	}
	ns := escape(req.Namespace)
	return ns + "#", ns + ":"
}

// PageLimit returns req.Limit with its default filled in, or an
// *idem.ConfigError of pkg for a negative one.
func (req ListRequest) PageLimit(pkg string) (int, error) {
	switch {
	case req.Limit < 0:
		return 0, &ConfigError{Package: pkg, Field: "Limit", Value: fmt.Sprint(req.Limit), Err: errors.New("must not be negative")}
	case req.Limit == 0:
		return defaultListLimit, nil
	}
	return req.Limit, nil
}

// BlobRef is where a record's offloaded result is (Config.Blobs): the
// object's name in the blob store, its size and the encoding of the bytes
// it holds.
type BlobRef struct {
	Name     string
	Size     int
	Encoding string
}

// Blob returns the blob a record's result was offloaded to, and whether
// it was (Encoding is "blob" and its pointer reads).
func (r *Record) Blob() (BlobRef, bool) {
	if r.Encoding != storekit.EncodingBlob {
		return BlobRef{}, false
	}
	var p blobPointer
	if err := json.Unmarshal(r.Result, &p); err != nil || p.Name == "" {
		return BlobRef{}, false
	}
	return BlobRef{Name: p.Name, Size: p.Size, Encoding: p.Encoding}, true
}
