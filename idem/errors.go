package idem

import "errors"

// Sentinel errors. Match them with errors.Is. Do wraps them in an *Error
// naming the operation and the key; a store's method returns them wrapped
// or bare.
var (
	// ErrLeaseLost means the caller no longer owns the key's claim: its lease
	// passed and another worker took the key over, or the record is gone.
	// The caller must not assume its result was stored.
	ErrLeaseLost = errors.New("idem: lease lost")
	// ErrPayloadMismatch means a record exists for the key but was written for
	// a different payload: the key is being reused for another request.
	ErrPayloadMismatch = errors.New("idem: payload does not match the record's")
	// ErrResultTooLarge means the result cannot be stored in one record.
	// Do then completes the key without it (Result.Omitted) so the work
	// does not run again, and returns this error with the Executed result.
	ErrResultTooLarge = errors.New("idem: result too large to store")
	// ErrNoKey means no idempotency key could be made for a request.
	ErrNoKey = errors.New("idem: no idempotency key")
	// ErrBadKey means a request's key cannot be used: the key rule
	// (CheckValue) refuses it, or what holds it is not a key (a JSON
	// object where a string was wanted). Unlike ErrNoKey, a request that
	// was given a key and whose key is bad is never run without one.
	ErrBadKey = errors.New("idem: unusable idempotency key")
	// ErrUnsupportedWrite means a write staged with Stage is of a type the
	// store cannot commit.
	ErrUnsupportedWrite = errors.New("idem: store cannot commit this staged write")
)
