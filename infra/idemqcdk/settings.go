package idemqcdk

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Limits Lambda places on the function and its SQS event source.
const (
	MaxTimeout        = 15 * time.Minute
	MinMemoryMB       = 128
	MaxMemoryMB       = 10240
	MaxBatchSize      = 10000
	MaxFIFOBatchSize  = 10
	MinMaxConcurrency = 2
	MaxMaxConcurrency = 1000
	// visibilityFactor is AWS's guidance: a queue feeding Lambda has a
	// visibility timeout of at least 6 × the function timeout (plus the
	// batching window).
	visibilityFactor = 6
)

// SettingError reports a WorkerProps value that cannot be deployed. Its
// message says what to change.
type SettingError struct {
	// Field is the WorkerProps field holding the value, e.g.
	// "VisibilityTimeout".
	Field string
	// Msg says what is wrong and which value to change.
	Msg string
	// Err is the cause, if any: for RecordExpiry, queue.CheckExpiry's error,
	// which wraps queue.ErrInvalidSettings.
	Err error
}

func (e *SettingError) Error() string {
	if e.Err != nil {
		return "idemqcdk: " + e.Msg + ": " + e.Err.Error()
	}
	return "idemqcdk: " + e.Msg
}

func (e *SettingError) Unwrap() error { return e.Err }

// settings are WorkerProps with the defaults filled in and checked.
type settings struct {
	timeout, retention, visibility, window, expiry time.Duration
	// dlqRetention is the dead-letter queue's retention: DLQRetention for
	// a Worker's, the user's queue's for an Attachment.
	dlqRetention                                  time.Duration
	memoryMB, maxReceives, batchSize, concurrency int // concurrency: NoMaxConcurrency for none
	fifo, backoff, blobs                          bool
	// existingQueue says the queue's settings are those of a queue that
	// exists (an Attachment's, or CheckQueue's), not ones the Worker
	// chooses: the messages then suggest no default.
	existingQueue bool
	arch          architecture
	tracing       Tracing           // TracingOff, TracingOTel or TracingXRay
	layerArn      string            // the collector layer's ARN (TracingLayerArn, checked); unused with tracing off
	pollers       *pollerSettings   // nil: on-demand polling
	capacity      *capacitySettings // nil: no capacity provider
	// blobDays is how long the bucket keeps a result, in days
	// (WorkerProps.BlobExpiryDays, or blobExpiryDays of expiry), and
	// blobPrefix the key prefix of results (WorkerProps.BlobPrefix, or
	// DefaultBlobPrefix); 0 and "" without blobs.
	blobDays   int
	blobPrefix string

	// request is WorkerProps.Request, checked, its key source defaulted
	// to request.DefaultKeyField: who a request is, given to the worker
	// and the front door through idemqenv (requestEnv).
	request request.Identity
	// warnings are annotations for settings that deploy but go against
	// AWS's guidance.
	warnings []string
}

// queue is the queue's settings, its dead-letter queue's retention
// included, for handler's record lifetime arithmetic.
func (s settings) queue() queue.Settings {
	return queue.Settings{
		Retention:           s.retention,
		VisibilityTimeout:   s.visibility,
		MaxReceives:         s.maxReceives,
		BatchingWindow:      s.window,
		DeadLetterRetention: s.dlqRetention,
		FIFO:                s.fifo,
	}
}

// deadLetterStay is the least time a message is kept in the dead-letter
// queue once it has moved there. SQS drops a standard queue's message the
// dead-letter queue's retention after it was first sent, not after it
// moved, and it may move as late as the queue's retention; a FIFO queue's
// message is kept the dead-letter queue's retention from its move.
func (s settings) deadLetterStay() time.Duration {
	if s.fifo {
		return s.dlqRetention
	}
	return max(s.dlqRetention-s.retention, 0)
}

// checkQueue checks the queue's settings in s against each other and
// against the function's timeout: what SQS accepts, the visibility
// timeout against the timeout (refused under it, a warning under AWS's
// guidance), a crashed worker's retry (checkCrashRetry), and how long a
// dead letter is sure to stay (a warning). Messages name each setting by
// label(field).
func (s *settings) checkQueue(label func(field string) string) error {
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	guidance := visibilityFactor*s.timeout + s.window
	switch {
	case !inSeconds(s.retention, queue.MinRetention, queue.MaxRetention):
		return bad("Retention", "%s %s must be whole seconds from %s to %s", label("Retention"), s.retention, queue.MinRetention, queue.MaxRetention)
	case s.maxReceives < queue.MinMaxReceives || s.maxReceives > queue.MaxMaxReceives:
		return bad("MaxReceives", "%s %d must be from %d to %d", label("MaxReceives"), s.maxReceives, queue.MinMaxReceives, queue.MaxMaxReceives)
	case !inSeconds(s.visibility, time.Second, queue.MaxVisibility):
		return bad("VisibilityTimeout", "%s %s must be whole seconds from 1s to %s", label("VisibilityTimeout"), s.visibility, queue.MaxVisibility)
	case s.visibility < s.timeout:
		fix := fmt.Sprintf("(left unset it is 6 × %s + %s = %s)", label("Timeout"), label("BatchingWindow"), guidance)
		if s.existingQueue {
			fix = fmt.Sprintf("to at least %s (AWS asks for 6 × %s + %s = %s)", s.timeout, label("Timeout"), label("BatchingWindow"), guidance)
		}
		return bad("VisibilityTimeout", "%s %s is shorter than %s %s, which Lambda rejects: a message would show again while its first receive still runs; raise %s %s or lower %s",
			label("VisibilityTimeout"), s.visibility, label("Timeout"), s.timeout, label("VisibilityTimeout"), fix, label("Timeout"))
	case s.dlqRetention != 0 && !inSeconds(s.dlqRetention, queue.MinRetention, queue.MaxRetention):
		return bad("DeadLetterRetention", "%s %s must be whole seconds from %s to %s", label("DeadLetterRetention"), s.dlqRetention, queue.MinRetention, queue.MaxRetention)
	case s.visibility < guidance:
		s.warnings = append(s.warnings, fmt.Sprintf("%s %s is under AWS's guidance of 6 × %s + %s = %s: messages may come back while the function still runs them",
			label("VisibilityTimeout"), s.visibility, label("Timeout"), label("BatchingWindow"), guidance))
	}
	if err := s.checkCrashRetry(label); err != nil {
		return err
	}
	if stay := s.deadLetterStay(); stay < MinDeadLetterStay {
		fix := "lower " + label("Retention")
		if s.dlqRetention < DLQRetention {
			fix = fmt.Sprintf("raise %s to %s (SQS's longest), or lower %s", label("DeadLetterRetention"), DLQRetention, label("Retention"))
		}
		s.warnings = append(s.warnings, fmt.Sprintf(
			"%s %s leaves a dead letter as little as %s in the dead-letter queue (which keeps messages %s) before SQS drops it: a standard queue's message keeps its first enqueue time, "+
				"and SQS keeps none longer than %s; the dead-letter expiry alarm goes off after %s, so answer the dead-letter alarm at once, or %s",
			label("Retention"), s.retention, stay, s.dlqRetention, DLQRetention, deadLetterExpiryAge(stay), fix))
	}
	return nil
}

// resolveExpiry sets s.expiry: given, it must cover the message lifetime
// (a warning when it does not cover a redrive from the dead-letter queue
// too); unset, it is queue.RecordLifetime of the queue's settings, the
// dead-letter queue's retention included.
func (s *settings) resolveExpiry(given time.Duration, label func(field string) string) error {
	life, err := queue.RecordLifetime(s.queue(), s.timeout)
	if err != nil {
		// checkQueue refuses what RecordLifetime does, and more; a
		// *queue.SettingError names the setting all the same.
		field := "RecordExpiry"
		if se, ok := errors.AsType[*queue.SettingError](err); ok {
			field = se.Setting
		}
		return &SettingError{Field: field, Msg: fmt.Sprintf("cannot size the record expiry (%s)", label(field)), Err: err}
	}
	if given == 0 {
		s.expiry = life
		return nil
	}
	// Shorter than the queue's own message lifetime, an ordinary
	// redelivery would find its record gone: refused. Shorter only than a
	// redrive from the dead-letter queue needs: deployed, with a warning
	// saying which redrives run the work again.
	s.expiry = given
	inQueue := s.queue()
	inQueue.DeadLetterRetention = 0
	if err := queue.CheckExpiry(inQueue, s.expiry); err != nil {
		return &SettingError{Field: "RecordExpiry",
			Msg: fmt.Sprintf("%s %s is too short; raise it, or leave it unset for the computed %s", label("RecordExpiry"), s.expiry, life),
			Err: err}
	}
	if err := queue.CheckExpiry(s.queue(), s.expiry); err != nil {
		s.warnings = append(s.warnings, fmt.Sprintf(
			"%s %s does not cover a redrive from the dead-letter queue, which keeps messages %s: a message redriven more than %s after it was sent "+
				"(%s less the message lifetime %s) may find its record expired and run its work again; leave %s unset for the computed %s",
			label("RecordExpiry"), s.expiry, s.dlqRetention, s.expiry-inQueue.MessageLifetime(), label("RecordExpiry"), inQueue.MessageLifetime(), label("RecordExpiry"), life))
	}
	return nil
}

// checkCrashRetry rejects settings under which a message whose worker
// crashed (or lost the answer) mid-call ends in the dead-letter queue with
// its work undone: queue.CheckLease's rule, for the lease the function
// has (the invocation's time left plus idem.DefaultLeaseMargin), with
// messages naming the settings. The crashed worker's claim holds the key
// until its lease ends, up to window + timeout + idem.DefaultLeaseMargin
// after the receive. Each receive before then finds the record in progress
// and spends one of the message's receives: one every visibility timeout
// without back-off, one in all with it (the back-off holds the message
// until the lease ends: the lease is far under 12 h).
// queue.Settings.InProgressReceives counts them. At least one
// receive must be left after that, and the message must still be retained
// when it comes.
func (s settings) checkCrashRetry(label func(field string) string) error {
	lease := s.window + s.timeout + idem.DefaultLeaseMargin
	inProgress := s.queue().InProgressReceives(lease, s.backoff)
	how := fmt.Sprintf("one every %s %s while the lease runs", label("VisibilityTimeout"), s.visibility)
	if s.backoff {
		how = "one with back-off on"
	}
	if need := inProgress + 2; s.maxReceives < need {
		fix := fmt.Sprintf("raise %s to at least %d or %s above %s", label("MaxReceives"), need, label("VisibilityTimeout"), lease)
		if !s.backoff {
			fix += fmt.Sprintf(", or turn on the in-progress back-off (%s)", label("DisableBackoff"))
		}
		return &SettingError{Field: "MaxReceives", Msg: fmt.Sprintf(
			"%s %d lets a message whose worker crashed mid-call reach the dead-letter queue with its work undone: "+
				"its claim holds the key for a lease of up to %s + %s + %s margin = %s, receives that find it in progress spend %d (%s), "+
				"and a retry needs one more after the first; %s",
			label("MaxReceives"), s.maxReceives, label("BatchingWindow"), label("Timeout"), idem.DefaultLeaseMargin, lease,
			inProgress, how, fix)}
	}
	if retry := lease + s.visibility; s.retention < retry {
		return &SettingError{Field: "Retention", Msg: fmt.Sprintf(
			"%s %s ends before a message whose worker crashed mid-call can be retried (its lease, up to %s, then up to %s %s): "+
				"the queue would drop it with its work undone; raise %s to at least %s",
			label("Retention"), s.retention, lease, label("VisibilityTimeout"), s.visibility, label("Retention"), retry)}
	}
	return nil
}

// or is v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// inSeconds reports whether d is a whole number of seconds within lo..hi.
func inSeconds(d, lo, hi time.Duration) bool {
	return d%time.Second == 0 && d >= lo && d <= hi
}
