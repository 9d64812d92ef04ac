package handler

import (
	"errors"

	"github.com/idemq/idemq/idem"
)

// Sentinel errors. A record's failure is an *idem.Error naming the message
// and the key; match its cause with errors.Is, against these or idem's
// (idem.ErrNoKey, idem.ErrPayloadMismatch, ...).
var (
	// ErrBadBody means the message body is not the JSON object the key or
	// the fingerprint is read from.
	ErrBadBody = errors.New("handler: body is not a JSON object")
	// ErrBadKey means the key field or attribute holds something other
	// than a string or a number.
	ErrBadKey = errors.New("handler: key is not a string or a number")
	// ErrInProgress means another worker holds the record's key with a live
	// lease; the message comes back later.
	ErrInProgress = errors.New("handler: key in progress on another worker")
	// ErrDeadline means the record was not started because too little time
	// was left before the invocation's deadline.
	ErrDeadline = errors.New("handler: not started: the invocation's deadline is near")
	// ErrFIFOBlocked means the record was not run, or its success not
	// reported, because an earlier record of the FIFO batch (or, with
	// WithFIFOGroupIsolation, of its message group) failed.
	ErrFIFOBlocked = errors.New("handler: not run: an earlier record of the FIFO batch failed")
	// ErrPanic means the function (or the replay hook) panicked.
	ErrPanic = errors.New("handler: panic")
	// ErrReplayHook means the replay hook failed.
	ErrReplayHook = errors.New("handler: replay hook failed")
)

// recordError makes err an *idem.Error naming the message, copying an
// *idem.Error rather than changing it (copies of a key share one).
func recordError(op string, key idem.Key, messageID string, err error) *idem.Error {
	var e *idem.Error
	if errors.As(err, &e) {
		c := *e
		c.MessageID = messageID
		if c.Key == "" {
			c.Key = key
		}
		return &c
	}
	return &idem.Error{Op: op, Key: key, MessageID: messageID, Err: err}
}
