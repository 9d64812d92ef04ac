package idem

import (
	"errors"
	"fmt"
	"strings"
)

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

// Op names the operation an *Error comes from: one of the Op constants,
// or a store's own (a string literal converts).
type Op string

// The operations of Do and of a Store's methods.
const (
	OpClaim    Op = "claim"    // claiming the key (Store.Claim), or reading what holds it
	OpReplay   Op = "replay"   // reading a stored result back
	OpRun      Op = "run"      // the work (Func) itself
	OpOffload  Op = "offload"  // putting a result in the blob store
	OpComplete Op = "complete" // storing the result (Store.Complete)
	OpRelease  Op = "release"  // freeing the claim (Store.Release)
	OpExtend   Op = "extend"   // renewing the lease (Store.Extend)
	OpGet      Op = "get"      // reading a record (a store's Get)
	OpList     Op = "list"     // listing records (Admin.List)
	OpDelete   Op = "delete"   // deleting a record as it was read (Admin.Delete)
	OpCleanup  Op = "cleanup"  // deleting expired records (a store's own sweep)
)

// Error says which operation on which key failed. Err is the cause: a
// sentinel above or a store's error.
type Error struct {
	Op  Op  // the operation that failed: OpClaim, OpReplay, OpRun, ...
	Key Key // empty when no key could be made
	Err error
}

// Error formats the operation, the key and the cause, with the package
// prefix once.
func (e *Error) Error() string {
	s := "idem: " + string(e.Op)
	if e.Key != "" {
		s += fmt.Sprintf(" key %q", string(e.Key))
	}
	return s + ": " + strings.TrimPrefix(e.Err.Error(), "idem: ")
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
