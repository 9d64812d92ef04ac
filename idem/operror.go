package idem

import (
	"fmt"
	"strings"
)

// Op names the operation an *Error comes from: one of the Op constants,
// or a store's own (a string literal converts).
type Op string

// The operations of Do and of a Store's methods. A store's own methods
// name theirs: "get", "list", "delete" (Admin), "cleanup".
const (
	OpClaim    Op = "claim"    // claiming the key (Store.Claim), or reading what holds it
	OpReplay   Op = "replay"   // reading a stored result back
	OpRun      Op = "run"      // the work (Func) itself
	OpOffload  Op = "offload"  // putting a result in the blob store
	OpComplete Op = "complete" // storing the result (Store.Complete)
	OpRelease  Op = "release"  // freeing the claim (Store.Release)
	OpExtend   Op = "extend"   // renewing the lease (Store.Extend)
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
