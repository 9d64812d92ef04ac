package durable

import (
	"errors"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Sentinel errors. A failure of Dispatch or Handle is a
// *handler.RecordError naming the message and the key, whose cause names
// the execution. Match the cause
// with errors.Is against ErrNotDurable and the sentinels the handler's
// records fail with: idem.ErrPayloadMismatch (the execution name is taken
// by another payload), request.ErrBadBody (the body is not JSON),
// handler.ErrPanic, handler.ErrFIFOBlocked, handler.ErrDeadline,
// handler.ErrNoOutcome, and the key errors (idem.ErrNoKey,
// idem.ErrBadKey, request.ErrKeyFuncPanic); the Lambda SDK's
// (*types.DurableExecutionAlreadyStartedException, ...) with errors.As.

// ErrNotDurable means Lambda accepted the invoke but named no durable
// execution: the function (or the version or alias invoked) is not a
// durable function, so no execution name guards it. The message is not
// acknowledged; fix the function's name.
var ErrNotDurable = errors.New("durable: invoked, but no durable execution ARN returned: the function is not a durable function")

var (
	// errKeyReused means Lambda refused the start because an execution
	// of the same name exists with another payload
	// (DurableExecutionAlreadyStartedException): the key was reused for
	// a different request, or the request was changed and re-sent under
	// its old key. Retrying cannot succeed while Lambda keeps that
	// execution, so the message comes back until the queue moves it to
	// its dead-letter queue; it is never acknowledged. It is
	// idem.ErrPayloadMismatch to errors.Is, as a handler's reused key is.
	errKeyReused = &sentinel{"durable: execution name taken by another payload: the key was reused for a different request", idem.ErrPayloadMismatch}
	// errBadPayload means the body is not a JSON document with a
	// canonical form (idemjson.Canonical): Lambda takes only JSON, and
	// the payload Lambda compares under a name must not depend on its
	// encoding. It is request.ErrBadBody to errors.Is.
	errBadPayload = &sentinel{"durable: body is not a JSON document with a canonical form", request.ErrBadBody}
)

// sentinel is an error of this package's own words that errors.Is
// matches to another package's sentinel of the same meaning, so that a
// caller matches one set.
type sentinel struct {
	msg string
	is  error
}

func (e *sentinel) Error() string        { return e.msg }
func (e *sentinel) Is(target error) bool { return target == e.is }
