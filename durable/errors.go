package durable

import (
	"errors"
	"fmt"
)

// Sentinel errors. A record's failure is a *RecordError naming the message,
// the key and the execution name; match its cause with errors.Is, against
// these, the key errors of package request (idem.ErrNoKey,
// request.ErrBadKey, request.ErrBadBody, request.ErrKeyFuncPanic) or the
// Lambda SDK's (*types.TooManyRequestsException, ...) with errors.As.
var (
	// ErrKeyReused means Lambda refused the start because an execution of
	// the same name exists with another payload
	// (DurableExecutionAlreadyStartedException): the key was reused for a
	// different request, or the request was changed and re-sent under its
	// old key. Retrying cannot succeed while Lambda keeps that execution,
	// so the message comes back until the queue moves it to its
	// dead-letter queue; it is never acknowledged.
	ErrKeyReused = errors.New("durable: execution name taken by another payload: the key was reused for a different request")
	// ErrNotDurable means Lambda accepted the invoke but named no durable
	// execution: the function (or the version or alias invoked) is not a
	// durable function, so no execution name guards it. The message is
	// not acknowledged; fix the function's name.
	ErrNotDurable = errors.New("durable: invoked, but no durable execution ARN returned: the function is not a durable function")
	// ErrBadPayload means the body is not a JSON document with a canonical
	// form (idemjson.Canonical): Lambda takes only JSON, and the payload
	// Lambda compares under a name must not depend on its encoding.
	ErrBadPayload = errors.New("durable: body is not a JSON document with a canonical form")
	// ErrPanic means the Lambda client panicked (a KeyFunc's panic is
	// request.ErrKeyFuncPanic).
	ErrPanic = errors.New("durable: panic")
	// ErrFIFOBlocked means the record was not started because an earlier
	// record of its FIFO batch failed: Lambda's order for FIFO queues.
	ErrFIFOBlocked = errors.New("durable: not started: an earlier record of the FIFO batch failed")
	// ErrNoOutcome means the record's start ended without an outcome: it
	// is not acknowledged.
	ErrNoOutcome = errors.New("durable: record ended without an outcome")
)

// RecordError says which message was not acknowledged and why.
type RecordError struct {
	MessageID string
	// Key is the record key (Start.Key), "" when none could be read.
	Key string
	// Name is the execution name the key maps to, "" when no key was read.
	Name string
	// Err is the cause: a sentinel above, a key error of package request,
	// or the Lambda client's error.
	Err error
}

// Error names the message, the key and the execution name.
func (e *RecordError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("durable: message %s: %v", e.MessageID, e.Err)
	}
	return fmt.Sprintf("durable: message %s key %q execution %s: %v", e.MessageID, e.Key, e.Name, e.Err)
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }
