package queue

import (
	"errors"
	"fmt"
	"time"
)

// Limits SQS and the Lambda event source mapping place on the settings that
// decide how long a message can live in a queue.
const (
	// MinRetention and MaxRetention bound a queue's message retention
	// period.
	MinRetention = 60 * time.Second
	MaxRetention = 14 * 24 * time.Hour
	// MaxVisibility is the longest SQS keeps a received message hidden:
	// the longest visibility timeout, and the longest one message's
	// visibility can be changed to.
	MaxVisibility = 12 * time.Hour
	// MinMaxReceives and MaxMaxReceives bound a redrive policy's
	// maxReceiveCount.
	MinMaxReceives = 1
	MaxMaxReceives = 1000
	// MinSafeMaxReceives is the fewest receives RecordLifetime accepts:
	// one for the work and one for its retry. With one, a message whose
	// only receive fails (a crash, a timeout, a provider's 429) moves to
	// the dead-letter queue with its work undone. AWS recommends at least
	// 5 for a queue feeding Lambda, whose throttled invocations spend
	// receives too.
	MinSafeMaxReceives = 2
	// MaxBatchingWindow is the longest MaximumBatchingWindowInSeconds of an
	// SQS event source mapping.
	MaxBatchingWindow = 300 * time.Second
)

// MaxMessageBytes is the largest message SQS takes (1 MiB: body and
// attributes, on a queue whose MaximumMessageSize allows it), and the
// largest total payload of one SendMessageBatch.
const MaxMessageBytes = 1 << 20

// DefaultBatchSize is the SQS event source mapping's default batch size,
// which is also the most messages one SQS receive hands out: 10.
const DefaultBatchSize = 10

// ErrInvalidSettings reports queue settings that no record lifetime can
// cover, or a record expiry shorter than the lifetime they need.
var ErrInvalidSettings = errors.New("queue: invalid settings")

// SettingError reports one setting outside what SQS (or the stream) and
// Lambda accept, or one RecordLifetime refuses as unsafe. It is ErrInvalidSettings
// (errors.Is).
type SettingError struct {
	// Setting names the value at fault: a Settings or Stream field
	// ("VisibilityTimeout", "MaxReceives", "MaxRecordAge", ...) or
	// "Timeout", the function timeout given to RecordLifetime.
	Setting string
	// Msg says what is wrong with it.
	Msg string
}

// Error is ErrInvalidSettings's text and Msg.
func (e *SettingError) Error() string { return ErrInvalidSettings.Error() + ": " + e.Msg }

// Is reports whether target is ErrInvalidSettings.
func (e *SettingError) Is(target error) bool { return target == ErrInvalidSettings }

// invalid is a *SettingError for setting.
func invalid(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Msg: fmt.Sprintf(format, args...)}
}

// Settings are the queue and event source values that bound how long
// one message can keep coming back.
type Settings struct {
	// Retention is the queue's message retention period (SQS: 60 s to
	// 14 days; AWS's default is 4 days).
	Retention time.Duration
	// VisibilityTimeout is the queue's visibility timeout (0 to 12 h).
	VisibilityTimeout time.Duration
	// MaxReceives is the redrive policy's maxReceiveCount (1 to 1000).
	MaxReceives int
	// BatchingWindow is the event source mapping's
	// MaximumBatchingWindowInSeconds (0 to 300 s).
	BatchingWindow time.Duration
	// DeadLetterRetention is the dead-letter queue's message retention
	// period (60 s to 14 days), counted in so that a message redriven from
	// it back to the queue still finds its record (RedriveLifetime).
	// Defaults to 0: no dead-letter queue, or none redriven; a redrive
	// after the record expired runs the work again.
	DeadLetterRetention time.Duration
	// FIFO says the queue and its dead-letter queue are FIFO queues, whose
	// dead-lettered messages keep DeadLetterRetention from when they moved
	// rather than from when they were sent. Defaults to false.
	FIFO bool
}

// Validate reports the first setting outside what SQS and Lambda accept,
// as a *SettingError naming it.
func (q Settings) Validate() error {
	switch {
	case q.Retention < MinRetention || q.Retention > MaxRetention:
		return invalid("Retention", "retention %s is outside %s..%s", q.Retention, MinRetention, MaxRetention)
	case q.VisibilityTimeout <= 0 || q.VisibilityTimeout > MaxVisibility:
		return invalid("VisibilityTimeout", "visibility timeout %s is outside (0s, %s]", q.VisibilityTimeout, MaxVisibility)
	case q.MaxReceives < MinMaxReceives || q.MaxReceives > MaxMaxReceives:
		return invalid("MaxReceives", "max receives %d is outside %d..%d", q.MaxReceives, MinMaxReceives, MaxMaxReceives)
	case q.BatchingWindow < 0 || q.BatchingWindow > MaxBatchingWindow:
		return invalid("BatchingWindow", "batching window %s is outside 0s..%s", q.BatchingWindow, MaxBatchingWindow)
	case q.DeadLetterRetention != 0 && (q.DeadLetterRetention < MinRetention || q.DeadLetterRetention > MaxRetention):
		return invalid("DeadLetterRetention", "dead-letter retention %s is outside %s..%s (or 0: not counted)", q.DeadLetterRetention, MinRetention, MaxRetention)
	}
	return nil
}

// MessageLifetime is the longest a message with these settings can keep
// being delivered from the queue, counted from when it was sent:
// retention + max receives × (visibility timeout + batching window). It
// leaves a redrive from the dead-letter queue out (see RedriveLifetime)
// and does not validate the settings.
func (q Settings) MessageLifetime() time.Duration {
	return q.Retention + time.Duration(q.MaxReceives)*(q.VisibilityTimeout+q.BatchingWindow)
}

// RedriveLifetime is the longest a message with these settings can keep
// being delivered, counted from when it was sent, when it is moved to the
// dead-letter queue and redriven from it to the queue once, as late as the
// dead-letter queue keeps it. A redrive sends it as a new message (new id,
// new enqueue time), which lives a whole MessageLifetime again. A message
// moves to the dead-letter queue at most MessageLifetime after it was sent;
// there a standard queue's message keeps its first enqueue time, so it is
// gone DeadLetterRetention after it was sent (or at once, if that has
// passed), while a FIFO queue's is kept DeadLetterRetention from its move:
//
//	standard: max(dead-letter retention, message lifetime) + message lifetime
//	FIFO:     message lifetime + dead-letter retention + message lifetime
//
// With DeadLetterRetention 0 it is MessageLifetime. A message that fails
// again goes back to the dead-letter queue, and each further redrive can
// add as much again: only the first is covered. It does not validate the
// settings.
func (q Settings) RedriveLifetime() time.Duration {
	life := q.MessageLifetime()
	switch {
	case q.DeadLetterRetention == 0:
		return life
	case q.FIFO:
		return life + q.DeadLetterRetention + life
	default:
		return max(q.DeadLetterRetention, life) + life
	}
}
