package handler

import (
	"errors"
	"fmt"
	"time"
)

// Limits SQS and the Lambda event source mapping place on the settings that
// decide how long a message can live in a queue.
const (
	MinRetention      = 60 * time.Second
	MaxRetention      = 14 * 24 * time.Hour
	MaxVisibility     = 12 * time.Hour
	MinMaxReceives    = 1
	MaxMaxReceives    = 1000
	MaxBatchingWindow = 300 * time.Second
)

// ErrInvalidSettings reports queue settings that no record lifetime can
// cover, or a record expiry shorter than the lifetime they need.
var ErrInvalidSettings = errors.New("handler: invalid queue settings")

// QueueSettings are the queue and event source values that bound how long
// one message can keep coming back.
type QueueSettings struct {
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
}

// Validate reports the first setting outside what SQS and Lambda accept,
// naming it.
func (q QueueSettings) Validate() error {
	switch {
	case q.Retention < MinRetention || q.Retention > MaxRetention:
		return fmt.Errorf("%w: retention %s is outside %s..%s", ErrInvalidSettings, q.Retention, MinRetention, MaxRetention)
	case q.VisibilityTimeout <= 0 || q.VisibilityTimeout > MaxVisibility:
		return fmt.Errorf("%w: visibility timeout %s is outside (0s, %s]", ErrInvalidSettings, q.VisibilityTimeout, MaxVisibility)
	case q.MaxReceives < MinMaxReceives || q.MaxReceives > MaxMaxReceives:
		return fmt.Errorf("%w: max receives %d is outside %d..%d", ErrInvalidSettings, q.MaxReceives, MinMaxReceives, MaxMaxReceives)
	case q.BatchingWindow < 0 || q.BatchingWindow > MaxBatchingWindow:
		return fmt.Errorf("%w: batching window %s is outside 0s..%s", ErrInvalidSettings, q.BatchingWindow, MaxBatchingWindow)
	}
	return nil
}

// MessageLifetime is the longest a message with these settings can keep
// being delivered: retention + max receives × (visibility timeout +
// batching window). It does not validate the settings.
func (q QueueSettings) MessageLifetime() time.Duration {
	return q.Retention + time.Duration(q.MaxReceives)*(q.VisibilityTimeout+q.BatchingWindow)
}

// RecordLifetime is how long an idempotency record must be kept so that no
// redelivery of a message with these settings can outlive it: the message
// lifetime plus a margin of a quarter of it (at least one hour), rounded up
// to a whole minute. It errs long on purpose: a record kept too long costs
// storage, a record dropped too early costs a second execution.
//
// For AWS's defaults (4 days retention, 30 s visibility timeout, 5 receives,
// no batching window) the message lifetime is 96h2m30s and the record
// lifetime 120h4m.
func RecordLifetime(q QueueSettings) (time.Duration, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	life := q.MessageLifetime()
	margin := max(life/4, time.Hour)
	return (life + margin + time.Minute - 1).Truncate(time.Minute), nil
}

// CheckExpiry reports an error when expiry is shorter than the lifetime
// these settings need, saying by how much.
func CheckExpiry(q QueueSettings, expiry time.Duration) error {
	if err := q.Validate(); err != nil {
		return err
	}
	if life := q.MessageLifetime(); expiry < life {
		return fmt.Errorf("%w: record expiry %s is shorter than the message lifetime %s (retention %s + %d receives × (visibility %s + batching window %s)); raise the expiry or lower those settings",
			ErrInvalidSettings, expiry, life, q.Retention, q.MaxReceives, q.VisibilityTimeout, q.BatchingWindow)
	}
	return nil
}
