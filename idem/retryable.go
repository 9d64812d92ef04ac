package idem

import (
	"context"
	"errors"
)

// Retryable reports whether err, returned by a Store's method, may be
// transient: whether the same request, sent again, may get another
// answer. It is false for nil; for a context that ended
// (context.Canceled, context.DeadlineExceeded); for the definitive
// answers ErrLeaseLost (a Superseded completion too), ErrResultTooLarge,
// ErrUnsupportedWrite, ErrNoKey and ErrPayloadMismatch; and for an error a
// store marked with Permanent. It is true for any other error: a lost
// connection, a timeout of the store's client, throttling.
//
// Do sends each request once (see Do): a store's client retries what may
// be transient. Retryable is for a store's author deciding what its
// client sends again, and for a caller deciding how loudly to report a
// failure: the SQS handler logs a record whose cause is not Retryable (an
// ended context and a lost lease aside, which a retry may get past) at
// level ERROR, since its retry cannot succeed.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	var p *permanentError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ErrLeaseLost), errors.Is(err, ErrResultTooLarge),
		errors.Is(err, ErrUnsupportedWrite), errors.Is(err, ErrNoKey),
		errors.Is(err, ErrPayloadMismatch), errors.As(err, &p):
		return false
	}
	return true
}

// Permanent returns err marked as a definitive answer of a store, or of
// another service that keeps a key (Lambda refusing a durable execution's
// start), one the same request would get again (a table of another shape,
// a staged write's condition that failed), so that Retryable reports false
// for it and for any error that wraps it. The mark changes neither err's message
// nor what errors.Is and errors.As find in it. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// permanentError is an error marked by Permanent.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
