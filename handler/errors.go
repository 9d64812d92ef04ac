package handler

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// Sentinel errors. A record's failure is a *RecordError naming the message
// and the key; match its cause with errors.Is, against these, idem's and
// request's: idem.ErrInProgress (another worker holds the key with a live
// lease; the message comes back later), idem.ErrBadKey (the key field or
// attribute holds no usable key, which fails the record even with
// WithKeyless), request.ErrBadBody (the body is not the JSON object the
// key or the fingerprint is read from, or a typed body does not decode),
// idem.ErrNoKey, idem.ErrPayloadMismatch, ...
var (
	// ErrDeadline means the record was not started because too little time
	// was left before the invocation's deadline.
	ErrDeadline = errors.New("handler: not started: the invocation's deadline is near")
	// ErrFIFOBlocked means the record was not run, or its success not
	// reported, because an earlier record of the FIFO batch (or, with
	// Config.FIFOGroupIsolation, of its message group) failed.
	ErrFIFOBlocked = errors.New("handler: not run or not acknowledged: an earlier record of the FIFO batch failed")
	// ErrPanic means the function, the replay hook, the key func or the
	// store panicked. (A failure hook's panic is logged and changes
	// nothing.)
	ErrPanic = errors.New("handler: panic")
	// ErrNoOutcome means the record's processing ended without an outcome
	// (the function's goroutine exited with runtime.Goexit, or the record
	// was never reached): it is not acknowledged. A claim it made is not
	// released but left to its lease, as for a crash: the retry finds the
	// key in progress until the lease ends, then takes it over.
	ErrNoOutcome = errors.New("handler: record ended without an outcome")
	// ErrBatchFailed is what the handler returns (unless
	// Config.NoBatchError) for a batch none of whose messages is
	// acknowledged, one record at least having failed: the invocation
	// fails, so that Lambda counts it as an error and brings the whole
	// batch back, the messages the response lists. It wraps the first
	// failed record's *RecordError.
	ErrBatchFailed = errors.New("handler: no message of the batch is acknowledged")
)

// errReplayHook means the replay hook returned an error (a panic is
// ErrPanic); the hook's error is wrapped with it.
var errReplayHook = errors.New("handler: replay hook failed")

// OpKey is RecordError.Op for a record whose key or fingerprint could not
// be read from the message, or, for a typed handler (NewTyped), whose
// body could not be decoded: all before any claim. The other stages are idem's (idem.OpClaim,
// idem.OpRun, idem.OpComplete, idem.OpReplay).
const OpKey idem.Op = "key"

// RecordError says which message failed and why. The failure hook and the
// log get one for every record reported as a batch item failure.
type RecordError struct {
	MessageID string
	Key       idem.Key // empty when no key could be read
	// Op is the stage that failed: OpKey (reading the key or the
	// fingerprint, or decoding a typed body), idem.OpClaim, idem.OpRun or idem.OpComplete (idem.Do's,
	// or the handler's own, such as the deadline guard), idem.OpReplay
	// (reading the stored result, or the replay hook).
	Op idem.Op
	// Err is the cause: an *idem.Error from the claim or the work, a
	// sentinel above, or the function's own error.
	Err error
}

// Error names the message, then the stage and the key unless the cause
// names them (an *idem.Error does): "handler: message m-1: idem: run key
// "ns#k": ...", "handler: message m-2: reading its key: idem: no
// idempotency key: ...", "handler: message m-3: run key "ns#k": handler:
// panic: ...".
func (e *RecordError) Error() string {
	s := "handler: message " + e.MessageID + ": "
	var ie *idem.Error
	switch {
	case errors.As(e.Err, &ie):
	case e.Op == OpKey:
		s += "reading its key: "
	case e.Key != "":
		s += fmt.Sprintf("%s key %q: ", e.Op, string(e.Key))
	case e.Op != "":
		s += string(e.Op) + ": "
	}
	return s + e.Err.Error()
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }
