package idem

import (
	"context"
	"time"
)

// Store keeps idempotency records. Every method is a single atomic step
// evaluated by the store itself; none is a read followed by a write.
// Implementations must pass the conformance suite in idem/idemtest.
//
// Stores have no clock: the caller passes the time each decision is made at.
type Store interface {
	// Claim writes an IN_PROGRESS record for the key, owned by req.Owner,
	// if the key is absent or its record is Claimable at req.Now. Otherwise it
	// writes nothing and returns the record that holds the key. A key that is
	// held is an outcome, not an error. A key held IN_PROGRESS by req.Owner
	// is Claimed: the request is a retry of this claim whose answer was
	// lost. A store that refuses a write because another writer is
	// changing the record (a replicated table's conflict) returns
	// ErrWriteConflict, wrapped, never a claim: Do reports it InProgress.
	Claim(ctx context.Context, req ClaimRequest) (Claim, error)
	// Complete stores the result and its encoding and marks the record
	// COMPLETED, if owner still owns it (ErrLeaseLost otherwise). Writes
	// staged by the caller are committed in the same atomic step.
	// Completing a record the owner already completed with the same result
	// in the same encoding succeeds (a retry); with another result or
	// encoding it is ErrLeaseLost. A result the store cannot keep (its
	// stored, encoded bytes) is ErrResultTooLarge, and leaves the record
	// as it was. A completion with OmittedBytes stores no result and no
	// encoding but the marker, which Claim returns in Record.OmittedBytes.
	// Do sends it once: a store whose requests can fail transiently
	// retries them itself, within ctx, as its client's retryer does.
	Complete(ctx context.Context, c Completion) error
	// Release deletes the record if owner still owns it and it is
	// IN_PROGRESS, so a retry can claim the key again (ErrLeaseLost
	// otherwise).
	Release(ctx context.Context, key Key, owner string) error
	// Extend moves the lease of an IN_PROGRESS record owned by e.Owner to
	// e.LeaseUntil and its expiry to e.ExpiresAt, so that a live lease never
	// outlasts its record (ErrLeaseLost if the owner does not hold it).
	Extend(ctx context.Context, e Extension) error
}

// ClaimRequest is one attempt to take a key.
type ClaimRequest struct {
	Key         Key
	Owner       string    // a token unique to this attempt (Do makes a random one)
	Fingerprint string    // the payload's fingerprint; empty: not checked
	Now         time.Time // the time the claim is judged at
	LeaseUntil  time.Time // when the claim may be taken over
	ExpiresAt   time.Time // when the record expires
}

// Claim is what a store answers to a ClaimRequest.
type Claim struct {
	// Claimed is set when the caller owns the key and must do the work.
	Claimed bool
	// Record is the record that holds the key when Claimed is not set,
	// read in the same round trip as the failed claim: StatusCompleted
	// (the work was done; Result holds its result, or OmittedBytes says it
	// was too large to store) or StatusInProgress (another worker holds a
	// live lease, until LeaseUntil).
	Record Record
	// Previous is the record a claim replaced (an expired record, or an
	// IN_PROGRESS claim whose lease had passed); nil when the key was
	// absent, and when Claimed is not set.
	Previous *Record
}

// Extension renews a claim while its work runs (Config.Heartbeat).
type Extension struct {
	Key   Key
	Owner string
	// LeaseUntil is the lease's new end; zero removes the lease, so the
	// claim is held until the record expires.
	LeaseUntil time.Time
	// ExpiresAt is the record's new expiry, at or after LeaseUntil; zero
	// leaves the expiry as it is.
	ExpiresAt time.Time
}

// Completion is the final write of a claimed key.
type Completion struct {
	Key   Key
	Owner string
	// Result is the result as it is to be stored, encoded as Encoding
	// says.
	Result []byte
	// Encoding is how Result is encoded (Record.Encoding): "", "gzip"
	// or "blob". The store keeps it with the result, and Claim
	// returns it; a store keeps any string it is given.
	Encoding  string
	ExpiresAt time.Time
	// Writes are store-specific writes committed atomically with the
	// record, staged by the work with Stage. A store rejects types it does
	// not know with ErrUnsupportedWrite.
	Writes []any
	// OmittedBytes, when above 0, completes the record without its result:
	// the result, of that many bytes, was too large to store. Result and
	// Encoding are then ignored. 0 stores Result.
	OmittedBytes int
}

// String says what holds the key: "claimed", or the holding record's
// status ("COMPLETED", "INPROGRESS").
func (c Claim) String() string {
	if c.Claimed {
		return "claimed"
	}
	return string(c.Record.Status)
}
