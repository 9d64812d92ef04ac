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
	// lost.
	Claim(ctx context.Context, req ClaimRequest) (Claim, error)
	// Complete stores the result and marks the record COMPLETED, if owner
	// still owns it (ErrLeaseLost otherwise). Writes staged by the caller are
	// committed in the same atomic step. Completing a record the owner
	// already completed with the same result succeeds (a retry); with
	// another result it is ErrLeaseLost. A result the store cannot keep is
	// ErrResultTooLarge, and leaves the record as it was. A completion with
	// OmittedBytes stores no result but the marker, which Claim returns in
	// Record.OmittedBytes.
	Complete(ctx context.Context, c Completion) error
	// Release deletes the record if owner still owns it and it is
	// IN_PROGRESS, so a retry can claim the key again (ErrLeaseLost
	// otherwise).
	Release(ctx context.Context, key Key, owner string) error
	// Extend moves the lease of an IN_PROGRESS record owned by owner to
	// leaseUntil (ErrLeaseLost otherwise).
	Extend(ctx context.Context, key Key, owner string, leaseUntil time.Time) error
}

// ClaimRequest is one attempt to take a key.
type ClaimRequest struct {
	Key         Key
	Owner       string    // a token unique to this attempt; see NewOwner
	Fingerprint string    // the payload's fingerprint; empty: not checked
	Now         time.Time // the time the claim is judged at
	LeaseUntil  time.Time // when the claim may be taken over
	ExpiresAt   time.Time // when the record expires
}

// ClaimState is the outcome of a claim.
type ClaimState int

// The outcomes of a claim.
const (
	// Claimed: the caller owns the key and must do the work.
	Claimed ClaimState = iota + 1
	// HeldCompleted: the work was done; Claim.Record holds its result, or
	// its OmittedBytes says the result was too large to store.
	HeldCompleted
	// HeldInProgress: another worker holds a live lease, until
	// Claim.Record.LeaseUntil.
	HeldInProgress
)

// String names the state.
func (s ClaimState) String() string {
	switch s {
	case Claimed:
		return "claimed"
	case HeldCompleted:
		return "completed"
	case HeldInProgress:
		return "in progress"
	}
	return "unknown"
}

// Claim is what a store answers to a ClaimRequest.
type Claim struct {
	State ClaimState
	// Record is the record that holds the key when State is not Claimed,
	// read in the same round trip as the failed claim.
	Record Record
	// TookOver is set when Claimed replaced an existing record (an expired
	// record, or an IN_PROGRESS claim whose lease had passed); Previous is
	// that record.
	TookOver bool
	Previous *Record
}

// Completion is the final write of a claimed key.
type Completion struct {
	Key       Key
	Owner     string
	Result    []byte
	ExpiresAt time.Time
	// Writes are store-specific writes committed atomically with the
	// record, staged by the work with Stage. A store rejects types it does
	// not know with ErrUnsupportedWrite.
	Writes []any
	// OmittedBytes, when above 0, completes the record without its result:
	// the result, of that many bytes, was too large to store. Result is
	// then ignored. 0 stores Result.
	OmittedBytes int
}
