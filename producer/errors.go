package producer

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/request"
)

// Sentinel errors; match them with errors.Is. A message the producer
// refuses before sending wraps ErrKeyMismatch, ErrBadMessage or
// ErrTooLarge (or idem.ErrNoKey, idem.ErrBadKey, request.ErrBadBody:
// the handler's own reasons for refusing the key); a send that failed
// wraps ErrRejected or ErrUnconfirmed.
var (
	// ErrKeyMismatch means the body already holds a key, or its key
	// fields make one, other than Message.Key. It is
	// request.ErrKeyMismatch.
	ErrKeyMismatch = request.ErrKeyMismatch
	// ErrBadMessage means the message cannot be sent as it is: its body
	// or an attribute's value is text SQS refuses (empty, not UTF-8, or
	// holding a character outside those SQS allows: queue.CheckText), a
	// FIFO message has no group id, or its group id is one SQS refuses.
	// (A body the key cannot be put in is request.ErrBadBody.)
	ErrBadMessage = errors.New("producer: message cannot be sent")
	// ErrTooLarge means the body is larger than Config.MaxMessageBytes.
	ErrTooLarge = errors.New("producer: message too large")
	// ErrRejected means SQS answered that it did not take the message (a
	// client error other than a throttle): it is not on the queue, and
	// sending it again as it is will not help.
	ErrRejected = errors.New("producer: SQS rejected the message")
	// ErrUnconfirmed means no attempt's answer said the message was
	// taken (answers lost, timeouts, server errors, the context ended):
	// it may be on the queue, or not. Sending it again with the same key
	// is safe: the handler runs the work once per key however many
	// copies arrive.
	ErrUnconfirmed = errors.New("producer: send not confirmed")
)

// MessageError is the error of one message of SendBatch: which one, its
// key and why.
type MessageError struct {
	Index int    // the message's place in SendBatch's slice
	Key   string // the key, when one was read or built
	Err   error
}

// Error reads "producer: message 3 (key k): cause".
func (e *MessageError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("producer: message %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("producer: message %d (key %s): %v", e.Index, e.Key, e.Err)
}

// Unwrap returns the cause.
func (e *MessageError) Unwrap() error { return e.Err }
