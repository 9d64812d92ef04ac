package idem

import (
	"time"

	"github.com/idemq/idemq/internal/storekit"
)

// Status is the state of a record. The values are Powertools' so a table can
// be shared with its Python and TypeScript editions.
type Status string

// The two stored states. A record that has expired is treated as absent.
const (
	StatusInProgress Status = "INPROGRESS"
	StatusCompleted  Status = "COMPLETED"
)

// Record is what a store keeps for one key.
type Record struct {
	Key    Key
	Status Status
	// LeaseUntil is when an IN_PROGRESS claim may be taken over. Zero on a
	// COMPLETED record.
	LeaseUntil time.Time
	// ExpiresAt is when the record stops counting and may be deleted (the
	// table's TTL). Stores keep it with one-second resolution, rounded up.
	ExpiresAt time.Time
	// Result is the stored result of a COMPLETED record, as stored:
	// encoded as Encoding says. Do replays it decoded; DecodedResult
	// decodes a record read with a store's Get.
	Result []byte
	// Encoding says how Result is stored: "" (as the work returned it),
	// "gzip" (one gzip member, RFC 1952) or "blob" (a pointer to an object
	// of Config.Blobs). A record written before compression existed, or
	// by Powertools, has none.
	Encoding string
	// OmittedBytes is the size of a result too large to store (at least
	// 1, even for an empty one): the record was COMPLETED without it
	// (Result is empty). 0 when the result is stored.
	OmittedBytes int
	// Fingerprint identifies the payload the record was written for; empty
	// means the payload is not checked. Do stores it short
	// (22 bytes of its digest); a record written before holds the long form.
	// Do compares the two forms alike.
	Fingerprint string
	// Owner is the token of the claim that wrote the record.
	Owner string
}

// Claimable reports whether a claim at now may replace r: r has expired, or
// r is IN_PROGRESS and its lease has passed. Expiry compares whole seconds
// and the lease whole milliseconds, as they are stored.
func (r *Record) Claimable(now time.Time) bool {
	if r == nil {
		return true
	}
	if storekit.ExpirySeconds(r.ExpiresAt) < now.Unix() {
		return true
	}
	return r.Status == StatusInProgress && !r.LeaseUntil.IsZero() && r.LeaseUntil.UnixMilli() < now.UnixMilli()
}
