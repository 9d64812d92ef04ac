package queue

import (
	"fmt"
	"time"
)

// Limits of streams and their event source mappings, from AWS's
// documentation (checked 2026-12): Kinesis Data Streams keeps records
// 24 hours by default and up to 8,760 hours (365 days), set in whole
// hours ("Change the data retention period"); DynamoDB Streams keeps them
// 24 hours ("Change data capture for DynamoDB Streams"); the Lambda event
// source mapping takes MaximumRetryAttempts -1 (no limit: "failed records
// are retried until the record expires") or 0 to 10,000, and
// MaximumRecordAgeInSeconds -1 (no limit) or 60 to 604,800 ("Lambda
// parameters for Amazon Kinesis Data Streams event source mappings"). An
// SQS or SNS on-failure destination receives the failed batch's
// metadata (shard, sequence numbers), not its records ("Retain discarded
// batch records for a Kinesis Data Streams event source").
const (
	minStreamRetention   = 24 * time.Hour
	maxStreamRetention   = 8760 * time.Hour
	maxStreamRetries     = 10000
	minStreamRecordAge   = 60 * time.Second
	maxStreamRecordAge   = 604800 * time.Second
	dynamoDBStreamRetain = 24 * time.Hour
)

// Stream are the settings of an ordered stream (a Kinesis data stream, or
// a DynamoDB table's stream) and of the Lambda event source mapping
// reading it that bound how long one record can keep being delivered, as
// Settings are a queue's. Its methods are the stream's RecordLifetime,
// CheckExpiry and Validate.
type Stream struct {
	// Retention is a Kinesis data stream's retention period, in whole
	// hours from 24 h to 8,760 h (365 days); a DynamoDB table's stream
	// keeps records 24 h, which 0 means. Required for Kinesis.
	Retention time.Duration
	// DynamoDB says the stream is a DynamoDB table's stream, whose
	// retention is 24 h, fixed. Defaults to false: a Kinesis data stream.
	DynamoDB bool
	// MaxRetryAttempts is the mapping's MaximumRetryAttempts: -1 for no
	// limit (Lambda's default: retried until the record expires or is
	// too old), or 0 to 10,000. RecordLifetime refuses 0, no retry.
	MaxRetryAttempts int
	// MaxRecordAge is the mapping's MaximumRecordAgeInSeconds: whole
	// seconds from 60 s to 7 days, or 0 (or -1 s) for no limit, Lambda's
	// default: the stream's retention bounds a record's life.
	MaxRecordAge time.Duration
	// BatchingWindow is the mapping's MaximumBatchingWindowInSeconds
	// (0 to 300 s). Defaults to 0.
	BatchingWindow time.Duration
	// OnFailureRetention is how long the mapping's on-failure destination
	// keeps the notice of a failed batch (an SQS queue's retention, 60 s
	// to 14 days), counted in so that records re-driven from it (read
	// back from the stream by the sequence numbers it names, and written
	// again) still find their records. Defaults to 0: no destination, or
	// none re-driven. A destination holding the records themselves (S3)
	// is not covered: a redrive from it is not bounded by the stream.
	OnFailureRetention time.Duration
}

// retention is the stream's retention: 24 h for DynamoDB Streams.
func (s Stream) retention() time.Duration {
	if s.DynamoDB {
		return dynamoDBStreamRetain
	}
	return s.Retention
}

// Validate reports the first setting outside what the stream and the
// Lambda event source mapping accept, as a *SettingError naming it.
func (s Stream) Validate() error {
	switch {
	case s.DynamoDB && s.Retention != 0 && s.Retention != dynamoDBStreamRetain:
		return invalid("Retention", "retention %s: a DynamoDB table's stream keeps records %s, fixed (leave it 0)", s.Retention, dynamoDBStreamRetain)
	case !s.DynamoDB && (s.Retention < minStreamRetention || s.Retention > maxStreamRetention || s.Retention%time.Hour != 0):
		return invalid("Retention", "retention %s: a Kinesis data stream keeps records whole hours from %s to %s", s.Retention, minStreamRetention, maxStreamRetention)
	case s.MaxRetryAttempts < -1 || s.MaxRetryAttempts > maxStreamRetries:
		return invalid("MaxRetryAttempts", "max retry attempts %d is outside -1 (no limit) and 0..%d", s.MaxRetryAttempts, maxStreamRetries)
	case s.MaxRecordAge != 0 && s.MaxRecordAge != -time.Second &&
		(s.MaxRecordAge < minStreamRecordAge || s.MaxRecordAge > maxStreamRecordAge || s.MaxRecordAge%time.Second != 0):
		return invalid("MaxRecordAge", "max record age %s is outside 0 (no limit) and whole seconds from %s to %s", s.MaxRecordAge, minStreamRecordAge, maxStreamRecordAge)
	case s.BatchingWindow < 0 || s.BatchingWindow > MaxBatchingWindow:
		return invalid("BatchingWindow", "batching window %s is outside 0s..%s", s.BatchingWindow, MaxBatchingWindow)
	case s.OnFailureRetention != 0 && (s.OnFailureRetention < MinRetention || s.OnFailureRetention > MaxRetention):
		return invalid("OnFailureRetention", "on-failure retention %s is outside %s..%s (or 0: not counted)", s.OnFailureRetention, MinRetention, MaxRetention)
	}
	return nil
}

// reach is how old a record can be when Lambda last reads it for an
// invocation: the stream's retention, or the maximum record age if
// shorter.
func (s Stream) reach() time.Duration {
	if s.MaxRecordAge > 0 {
		return min(s.retention(), s.MaxRecordAge)
	}
	return s.retention()
}

// Lifetime is the longest a record of this stream can keep being
// delivered, counted from when it was written, when each invocation may
// take timeout: read as late as the stream keeps it or the mapping takes
// it (retention, or MaxRecordAge if shorter), gathered for the batching
// window, run for timeout. A finite MaxRetryAttempts only ends it sooner
// (Lambda retries "until the record expires", or is too old, or the
// attempts are spent). With OnFailureRetention, a record re-driven from
// the destination's notice once counts too: it is written again (a new
// record, living a whole delivery lifetime) while both the notice and the
// record are kept, at most min(lifetime + on-failure retention, retention)
// after it was first written:
//
//	delivery: min(retention, max record age) + batching window + timeout
//	redrive:  min(delivery + on-failure retention, retention) + delivery
//
// It does not validate the settings.
func (s Stream) Lifetime(timeout time.Duration) time.Duration {
	life := s.reach() + s.BatchingWindow + timeout
	if s.OnFailureRetention == 0 {
		return life
	}
	return min(life+s.OnFailureRetention, s.retention()) + life
}

// RecordLifetime is how long an idempotency record must be kept so that no
// delivery of a record of this stream can outlive it, a redrive from the
// on-failure destination included when OnFailureRetention is set: the
// Lifetime plus a margin of a quarter of it (at least one hour), rounded
// up to a whole minute, as RecordLifetime sizes a queue's. timeout is the
// function's timeout.
//
// It refuses, as a *SettingError naming the setting, settings the stream
// and Lambda do not accept (Validate) and settings that cannot be safe
// whatever the lifetime: a timeout that is not positive; MaxRetryAttempts
// 0, no retry (a record that fails once, a provider's 429 or its key in
// progress elsewhere, goes to the on-failure destination with its work
// undone); and a MaxRecordAge under the batching window plus two
// timeouts, which leaves a record read as it arrived no retry after a
// first run that failed at the timeout (a crash holding its key: its
// lease ends after the timeout).
//
// For a Kinesis stream's default 24 h, no age or retry limit and a
// 1-minute function, the lifetime is 24h1m and the record lifetime
// 30h2m; with an SQS on-failure destination keeping notices 14 days,
// 48h1m and 60h2m.
func (s Stream) RecordLifetime(timeout time.Duration) (time.Duration, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	switch {
	case timeout <= 0:
		return 0, invalid("Timeout", "timeout %s: want the function's timeout, the longest one invocation may take", timeout)
	case s.MaxRetryAttempts == 0:
		return 0, invalid("MaxRetryAttempts", "max retry attempts 0 leaves no retry: a record that fails once (a crash, a timeout, a provider's 429, its key in progress elsewhere) goes to the on-failure destination with its work undone; "+
			"set -1 (retried until the record is too old or expires) with a MaxRecordAge, or a count")
	case s.MaxRecordAge > 0 && s.MaxRecordAge < s.BatchingWindow+2*timeout:
		return 0, invalid("MaxRecordAge", "max record age %s is shorter than the batching window %s + 2 × the function's timeout %s = %s: a record read as it arrived whose first run fails at the timeout (a crash holding its key) is too old for its retry and goes to the on-failure destination with its work undone; raise it to at least %s",
			s.MaxRecordAge, s.BatchingWindow, timeout, s.BatchingWindow+2*timeout, s.BatchingWindow+2*timeout)
	}
	life := s.Lifetime(timeout)
	margin := max(life/4, time.Hour)
	return (life + margin + time.Minute - 1).Truncate(time.Minute), nil
}

// CheckExpiry reports an error when expiry is shorter than the Lifetime
// of this stream's records with timeout, saying by how much.
func (s Stream) CheckExpiry(expiry, timeout time.Duration) error {
	if err := s.Validate(); err != nil {
		return err
	}
	need := s.Lifetime(timeout)
	if expiry >= need {
		return nil
	}
	what := fmt.Sprintf("a record's delivery lifetime %s (min(retention %s, max record age) + batching window %s + timeout %s)",
		s.reach()+s.BatchingWindow+timeout, s.retention(), s.BatchingWindow, timeout)
	if s.OnFailureRetention != 0 {
		what = fmt.Sprintf("the lifetime %s of a record re-driven once from the on-failure destination, which keeps notices %s (min(delivery + on-failure retention, retention) + delivery; %s)",
			need, s.OnFailureRetention, what)
	}
	return fmt.Errorf("%w: record expiry %s is %s shorter than %s; raise the expiry or lower those settings",
		ErrInvalidSettings, expiry, need-expiry, what)
}

// CheckLease reports an error, as a *SettingError naming the setting,
// when a record whose function crashed while holding its key's claim
// could not be run again before the mapping gives it up: the claim holds
// the key for up to lease after that invocation began (idem.Config.Lease;
// by default the invocation's time left plus idem.DefaultLeaseMargin, and
// twice the clock skew: written ahead, judged behind), and Lambda sends
// the batch again at once. A stream's
// handler (handler/stream) waits for such a lease within each invocation
// until its deadline guard, a reserve of at most half the invocation's
// time, so each retry covers at least half the timeout:
//
//   - a finite MaxRetryAttempts must be at least lease / (timeout/2),
//     rounded down, plus one, the retry that claims the key;
//   - a MaxRecordAge must leave, after the batching window, the lease and
//     then a run: at least batching window + lease + timeout.
//
// For a 1-minute function and the default lease (71 s), that is 3
// retries, or a record age of 2m11s.
func (s Stream) CheckLease(lease, timeout time.Duration) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if timeout <= 0 || lease <= 0 {
		return invalid("Timeout", "timeout %s and lease %s: want both positive", timeout, lease)
	}
	if need := int(lease/(timeout/2)) + 1; s.MaxRetryAttempts >= 0 && s.MaxRetryAttempts < need {
		return invalid("MaxRetryAttempts", "max retry attempts %d can run out while a crashed invocation's claim holds its key (lease %s; each retry waits at most half the timeout %s for it): its record goes to the on-failure destination with its work undone; set at least %d, or -1 with a MaxRecordAge",
			s.MaxRetryAttempts, lease, timeout, need)
	}
	if need := s.BatchingWindow + lease + timeout; s.MaxRecordAge > 0 && s.MaxRecordAge < need {
		return invalid("MaxRecordAge", "max record age %s is shorter than the batching window %s + a crashed invocation's lease %s + a run's timeout %s = %s: the record is too old when its key is free again, and goes to the on-failure destination with its work undone; raise it to at least %s",
			s.MaxRecordAge, s.BatchingWindow, lease, timeout, need, (need + time.Second - 1).Truncate(time.Second))
	}
	return nil
}
