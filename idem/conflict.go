package idem

import "errors"

// ErrWriteConflict means a store refused a request, without applying it,
// because another writer was changing the same record at that moment: a
// DynamoDB global table with multi-Region strong consistency answers so
// (ReplicatedWriteConflictException) when another Region writes the item.
// Nothing was written, and the same request sent again is judged anew, so
// it is Retryable. A store returns it wrapped, in an *Error; what it means
// depends on the request:
//
//   - Claim: another claimant is at the key. Do reports it as InProgress,
//     with no LeaseUntil, and never as a claim: the work does not run
//     here, and the request is left to be tried again (the SQS handler
//     leaves its message in the queue).
//   - Complete: the result is not stored. A store's client sends it again
//     within its attempts, as for any error that may be transient; when
//     they run out, Do reports NotStored and releases the claim.
//   - Release: the claim stays until its lease passes.
//   - Extend: the lease is not extended; it ends when it did. The
//     heartbeat tries again at its next beat, as after any error other
//     than a lost lease.
var ErrWriteConflict = errors.New("idem: request refused: another writer was changing the record")

// claimConflict is what the claim phase makes of a Claim refused with
// ErrWriteConflict: the key held by another claimant, whose lease it does
// not know.
func claimConflict(key Key) Claim {
	return Claim{Record: Record{Key: key, Status: StatusInProgress}}
}
