package request

import "errors"

// Sentinel errors of reading and stamping a request's identity. A message
// without a key is idem.ErrNoKey; one whose key the key rule
// (idem.CheckValue) refuses, as value or scope, or whose key member or
// attribute holds something other than a string or a number, is
// idem.ErrBadKey, never run without its key.
var (
	// ErrBadBody means the message body is not the JSON object the key or
	// the fingerprint is read from: not JSON, not an object, a member
	// name twice, or a fingerprint field absent or not Unicode text.
	ErrBadBody = errors.New("request: body is not a JSON object")
	// ErrKeyMismatch means a message already holds a key, or a scope,
	// other than the one it is being sent with.
	ErrKeyMismatch = errors.New("request: the message holds another key")
	// ErrKeyFuncPanic means Identity.KeyFunc panicked.
	ErrKeyFuncPanic = errors.New("request: the key func panicked")
)
