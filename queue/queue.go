package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// DefaultBatchSize is the SQS event source mapping's default batch size,
// which is also the most messages one SQS receive hands out: 10.
const DefaultBatchSize = 10

// ErrInvalidSettings reports queue settings that no record lifetime can
// cover, or a record expiry shorter than the lifetime they need.
var ErrInvalidSettings = errors.New("queue: invalid settings")

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
// naming it.
func (q Settings) Validate() error {
	switch {
	case q.Retention < MinRetention || q.Retention > MaxRetention:
		return fmt.Errorf("%w: retention %s is outside %s..%s", ErrInvalidSettings, q.Retention, MinRetention, MaxRetention)
	case q.VisibilityTimeout <= 0 || q.VisibilityTimeout > MaxVisibility:
		return fmt.Errorf("%w: visibility timeout %s is outside (0s, %s]", ErrInvalidSettings, q.VisibilityTimeout, MaxVisibility)
	case q.MaxReceives < MinMaxReceives || q.MaxReceives > MaxMaxReceives:
		return fmt.Errorf("%w: max receives %d is outside %d..%d", ErrInvalidSettings, q.MaxReceives, MinMaxReceives, MaxMaxReceives)
	case q.BatchingWindow < 0 || q.BatchingWindow > MaxBatchingWindow:
		return fmt.Errorf("%w: batching window %s is outside 0s..%s", ErrInvalidSettings, q.BatchingWindow, MaxBatchingWindow)
	case q.DeadLetterRetention != 0 && (q.DeadLetterRetention < MinRetention || q.DeadLetterRetention > MaxRetention):
		return fmt.Errorf("%w: dead-letter retention %s is outside %s..%s (or 0: not counted)", ErrInvalidSettings, q.DeadLetterRetention, MinRetention, MaxRetention)
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

// RecordLifetime is how long an idempotency record must be kept so that no
// redelivery of a message with these settings can outlive it, one redrive
// from the dead-letter queue included when DeadLetterRetention is set: the
// RedriveLifetime plus a margin of a quarter of it (at least one hour),
// rounded up to a whole minute. It errs long on purpose: a record kept too
// long costs storage, a record dropped too early costs a second execution.
//
// For AWS's defaults (4 days retention, 30 s visibility timeout, 5 receives,
// no batching window) the message lifetime is 96h2m30s and the record
// lifetime 120h4m; with a standard dead-letter queue keeping messages
// 14 days, the redrive lifetime is 432h2m30s and the record lifetime
// 540h4m.
func RecordLifetime(q Settings) (time.Duration, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	life := q.RedriveLifetime()
	margin := max(life/4, time.Hour)
	return (life + margin + time.Minute - 1).Truncate(time.Minute), nil
}

// CheckExpiry reports an error when expiry is shorter than the lifetime
// these settings need (RedriveLifetime: MessageLifetime, plus a redrive
// from the dead-letter queue when DeadLetterRetention is set), saying by
// how much.
func CheckExpiry(q Settings, expiry time.Duration) error {
	if err := q.Validate(); err != nil {
		return err
	}
	life := q.MessageLifetime()
	what := fmt.Sprintf("the message lifetime %s (retention %s + %d receives × (visibility %s + batching window %s))",
		life, q.Retention, q.MaxReceives, q.VisibilityTimeout, q.BatchingWindow)
	if q.DeadLetterRetention != 0 {
		kind, formula := "standard", "max(dead-letter retention, message lifetime) + message lifetime"
		if q.FIFO {
			kind, formula = "FIFO", "message lifetime + dead-letter retention + message lifetime"
		}
		what = fmt.Sprintf("the lifetime %s of a message redriven once from the %s dead-letter queue (%s; %s; dead-letter retention %s)",
			q.RedriveLifetime(), kind, formula, what, q.DeadLetterRetention)
	}
	if need := q.RedriveLifetime(); expiry < need {
		return fmt.Errorf("%w: record expiry %s is %s shorter than %s; raise the expiry or lower those settings",
			ErrInvalidSettings, expiry, need-expiry, what)
	}
	return nil
}

// InProgressReceives is how many receives of a message find its key held by
// a claim that holds it for held after the message's receive (the batching
// window plus the claim's lease, when the worker that made it crashed):
// the receives at each visibility timeout up to held, each spending one of
// the message's MaxReceives. With the in-progress back-off (handler.WithBackoff)
// the first of them holds the message until the lease ends, up to
// MaxVisibility at a time, so it spends one receive per 12 h held instead.
func (q Settings) InProgressReceives(held time.Duration, backoff bool) int {
	if q.VisibilityTimeout <= 0 || held < q.VisibilityTimeout {
		return 0
	}
	n := int(held / q.VisibilityTimeout)
	if backoff {
		n = min(n, 1+int((held-q.VisibilityTimeout)/MaxVisibility))
	}
	return n
}

// CheckLease reports an error when a message whose worker crashed (or lost
// the answer) while holding a claim with this lease could not be retried:
// the claim holds the key for up to batching window + lease after the
// receive; every receive in that time finds it in progress
// (InProgressReceives), and after the first receive and those one must be
// left for the retry, one visibility timeout after the lease ends at the
// latest, while the queue still keeps the message. Otherwise the message
// reaches the dead-letter queue, or is dropped, with its work undone. The
// lease is the claim's (idem.Config.Lease; by default the invocation's
// time left plus idem.DefaultLeaseMargin, so at most the function's
// timeout plus that margin).
func CheckLease(q Settings, lease time.Duration, backoff bool) error {
	if err := q.Validate(); err != nil {
		return err
	}
	held := q.BatchingWindow + lease
	how := "one every visibility timeout while the lease runs"
	if backoff {
		how = "one per 12 h with back-off on"
	}
	if n := q.InProgressReceives(held, backoff); q.MaxReceives < n+2 {
		return fmt.Errorf("%w: lease %s: a message whose worker crashed holding the key reaches the dead-letter queue with its work undone: "+
			"the key is held up to batching window %s + lease = %s after the receive, %d receives find it in progress (%s), and a retry needs %d receives in all, more than max receives %d; "+
			"shorten the lease or raise max receives or the visibility timeout %s",
			ErrInvalidSettings, lease, q.BatchingWindow, held, n, how, n+2, q.MaxReceives, q.VisibilityTimeout)
	}
	if retry := held + q.VisibilityTimeout; q.Retention < retry {
		return fmt.Errorf("%w: lease %s: a message whose worker crashed holding the key is retried up to %s after its receive "+
			"(batching window %s + lease + visibility timeout %s), after the retention %s: the queue would drop it with its work undone; shorten the lease or raise the retention",
			ErrInvalidSettings, lease, retry, q.BatchingWindow, q.VisibilityTimeout, q.Retention)
	}
	return nil
}

// settingsJSON is the JSON form of Settings.
type settingsJSON struct {
	Retention           string `json:"retention"`
	VisibilityTimeout   string `json:"visibilityTimeout"`
	MaxReceives         int    `json:"maxReceives"`
	BatchingWindow      string `json:"batchingWindow"`
	DeadLetterRetention string `json:"deadLetterRetention"`
	FIFO                bool   `json:"fifo"`
}

// MarshalJSON writes q as a JSON object with the fields retention,
// visibilityTimeout, maxReceives, batchingWindow, deadLetterRetention and
// fifo, durations as Go duration strings
// ({"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,...}),
// so that a deployment can hand its queue's settings to a worker, which
// checks its record expiry and lease against them (the CDK stack's
// IDEMQ_QUEUE).
func (q Settings) MarshalJSON() ([]byte, error) {
	return json.Marshal(settingsJSON{
		Retention:           q.Retention.String(),
		VisibilityTimeout:   q.VisibilityTimeout.String(),
		MaxReceives:         q.MaxReceives,
		BatchingWindow:      q.BatchingWindow.String(),
		DeadLetterRetention: q.DeadLetterRetention.String(),
		FIFO:                q.FIFO,
	})
}

// UnmarshalJSON reads what MarshalJSON writes. A field left out is zero; a
// field it does not know, or a duration that does not parse, is an error.
// It does not validate the settings (Validate does).
func (q *Settings) UnmarshalJSON(b []byte) error {
	var j settingsJSON
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&j); err != nil {
		return fmt.Errorf("queue: settings: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("queue: settings: more than one JSON value")
	}
	var out Settings
	for _, f := range []struct {
		name, v string
		d       *time.Duration
	}{
		{"retention", j.Retention, &out.Retention},
		{"visibilityTimeout", j.VisibilityTimeout, &out.VisibilityTimeout},
		{"batchingWindow", j.BatchingWindow, &out.BatchingWindow},
		{"deadLetterRetention", j.DeadLetterRetention, &out.DeadLetterRetention},
	} {
		if f.v == "" {
			continue
		}
		var err error
		if *f.d, err = time.ParseDuration(f.v); err != nil {
			return fmt.Errorf("queue: settings: %s %q is not a Go duration", f.name, f.v)
		}
	}
	out.MaxReceives, out.FIFO = j.MaxReceives, j.FIFO
	*q = out
	return nil
}
