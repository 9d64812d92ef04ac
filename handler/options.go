package handler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Defaults used when an option is not given.
const (
	// DefaultKeyField is the JSON body member that holds a record's
	// idempotency key (request.DefaultKeyField).
	DefaultKeyField = request.DefaultKeyField
	// DefaultConcurrency is how many records of a batch run at once: every
	// record of a batch of up to 100 (the SQS event source sends 10 unless
	// told otherwise), and 100 at a time of a larger one. Powertools runs
	// every record of a batch at once; the bound keeps a batch of 10,000
	// from opening 10,000 connections. The work is mostly waiting on the
	// network (the store, a model provider), so it is not tied to the
	// number of CPUs. Give the DynamoDB client as many idle connections
	// (dynamostore.KeepConnections); lower it with WithConcurrency to stay
	// within a provider's rate limit.
	DefaultConcurrency = 100
	// DefaultDeadlineReserve is the time left before the invocation's
	// deadline under which records are no longer started. It is capped at
	// half the time the invocation had when the batch began, so a function
	// with a short timeout still runs its records.
	DefaultDeadlineReserve = 5 * time.Second
)

// Option changes a Config; New applies them in order over the zero
// Config.
type Option func(*Config)

// KeyFunc returns the idempotency key of a message, within the namespace
// (request.KeyFunc). Returning "" or an error wrapping idem.ErrNoKey says
// the message has no key; any other error fails the record.
type KeyFunc = request.KeyFunc

// ReplayFunc receives the stored result of a record that was not executed
// because its key had been done before (by an earlier delivery, or by a copy
// in the same batch). An error fails the record, so the message comes back
// and the hook runs again.
type ReplayFunc func(ctx context.Context, msg events.SQSMessage, result []byte) error

// FailureFunc is told about each record reported as a batch item failure,
// after the batch, in input order. err is a *RecordError naming the message.
type FailureFunc func(ctx context.Context, msg events.SQSMessage, err error)

// WithNamespace sets the namespace every key starts with, so functions that
// share a table never share a key. Keep it stable: a new namespace makes
// every earlier record unreachable. Defaults to the Lambda function's name
// (lambdacontext.FunctionName); outside Lambda, where that is empty, to the
// program's name, with a warning.
func WithNamespace(ns string) Option {
	return func(c *Config) {
		if ns == "" {
			c.refuse("Namespace", `""`, errEmpty)
		}
		c.Request.Namespace = ns
	}
}

// WithRequest sets who each record's request is, whole: its namespace,
// where its key comes from, its fingerprint (Config.Request). Pass the
// same request.Identity to the producer, the front door, the dispatcher
// and the command, so that all of them name a request by one key. The key
// options below change one of its fields. Defaults to the zero
// request.Identity: the key is the body field DefaultKeyField, the
// namespace the function's name, the fingerprint the whole body.
func WithRequest(id request.Identity) Option {
	id.KeyFields = slices.Clone(id.KeyFields)
	id.FingerprintFields = slices.Clone(id.FingerprintFields)
	return func(c *Config) { c.Request = id }
}

// WithKeyField takes the key from a member of the JSON body: a name, or a
// dotted path into nested objects ("request.id"); a dot that is part of a
// name is written `\.` (see idemjson.CheckField). Its value must be a
// non-empty string of Unicode text, or a number (taken as spelled).
// A key has one source: another key option given as well is refused.
// Defaults to DefaultKeyField.
func WithKeyField(field string) Option {
	return func(c *Config) {
		if field == "" {
			c.refuse("KeyField", `""`, errEmpty)
		}
		c.Request.KeyField = field
	}
}

// WithKeyFields takes the key from several members of the JSON body that
// together name the request — "summarise document 4471 at version 9":
//
//	handler.WithKeyFields("document_id", "version") // key ns#document_id:4471:version:9
//
// Each field is a name or a dotted path, as in WithKeyField; their order
// does not matter. A value counts by what it says, not how it is spelled:
// a string's characters, a number's exact value (9, 9.0 and "9" are one
// key; 9007199254740993 and 9007199254740992 are two), true or false, an
// object's or an array's canonical JSON (idemjson.Object.NaturalValue). A
// field that is absent, null or empty is idem.ErrNoKey.
//
// With a key of fields the payload is not checked unless
// WithFingerprintFields names fields to check: the key already says which
// request a body is, and a whole-body check would fail the same request
// spelled another way ("version":"9" after "version":9), or carrying
// another trace id, all the way to the dead-letter queue. Defaults to off
// (the key comes from the body field DefaultKeyField).
func WithKeyFields(fields ...string) Option {
	fields = slices.Clone(fields)
	return func(c *Config) {
		if len(fields) == 0 {
			c.refuse("KeyFields", "[]", errEmpty)
		}
		c.Request.KeyFields = fields
	}
}

// WithKeyAttribute takes the key from a String or Number message attribute
// instead of the body. Defaults to off (the key comes from the body field
// DefaultKeyField).
func WithKeyAttribute(name string) Option {
	return func(c *Config) {
		if name == "" {
			c.refuse("KeyAttribute", `""`, errEmpty)
		}
		c.Request.KeyAttribute = name
	}
}

// WithKeyFunc takes the key from a function of the message. Never use the
// message id: a producer's re-send and a DLQ redrive carry new ones. The
// handler puts the namespace and "#" before what f returns (see
// idem.ClientKey), so f returns the key within the namespace; for a key
// of several parts, idem.NaturalValue escapes and joins them.
// Defaults to off (the key comes from the body field DefaultKeyField).
func WithKeyFunc(f KeyFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.refuse("KeyFunc", "", idem.ErrNil)
		}
		c.Request.KeyFunc = f
	}
}

// WithKeyless runs records that carry no key without idempotency: each
// delivery runs the function, as a plain batch processor would, with the
// partial batch response, sequences, FIFO order and hooks of the rest. Such
// records are counted as keyless in the batch's summary line (and EMF
// metric Keyless) and logged one by one at debug level only, so a queue
// whose messages mostly carry no key does not flood the log. A body that
// is not valid JSON still fails. Defaults to off: a record without a key
// is a batch item failure, so it reaches the dead-letter queue.
func WithKeyless() Option {
	return func(c *Config) { c.Keyless = true }
}

// WithFingerprintFields checks only these JSON body fields (names or
// dotted paths, as in WithKeyField) against the stored record, so fields
// that change between re-sends (a trace id, a timestamp) do not count.
// Defaults to the whole body, in canonical JSON form (idemjson.Fingerprint:
// RFC 8785 with numbers kept exact) when it has one, else its bytes; with
// WithKeyFields, to no check.
func WithFingerprintFields(fields ...string) Option {
	fields = slices.Clone(fields)
	return func(c *Config) {
		if len(fields) == 0 {
			c.refuse("FingerprintFields", "[]", errEmpty)
		}
		c.Request.FingerprintFields = fields
	}
}

// WithoutFingerprint turns the payload check off: a key reused for another
// payload replays the first payload's result. It cannot be given with
// WithFingerprintFields. Defaults to checking the whole body (see
// WithFingerprintFields).
func WithoutFingerprint() Option {
	return func(c *Config) { c.Request.NoFingerprint = true }
}

// WithConcurrency sets how many records of a batch run at once; n must be
// at least 1. Defaults to DefaultConcurrency.
func WithConcurrency(n int) Option {
	return func(c *Config) {
		if n < 1 {
			c.refuse("Concurrency", fmt.Sprint(n), errNotPositive)
		}
		c.Concurrency = n
	}
}

// WithDeadlineReserve sets the deadline guard: a record not yet started
// when less than d is left before the invocation's deadline is reported as
// a failure without starting, so the batch answers before Lambda's timeout
// (which would redeliver every record). The records that run get contexts
// that end d/2 before the deadline, leaving time to release their claims.
// Zero turns the guard off. Defaults to DefaultDeadlineReserve, capped at
// half the time the invocation had when the batch began.
func WithDeadlineReserve(d time.Duration) Option {
	return func(c *Config) {
		switch {
		case d < 0:
			c.refuse("DeadlineReserve", d.String(), errors.New("must not be negative (0 turns the guard off)"))
		case d == 0:
			c.DeadlineReserve = NoDeadlineReserve
		default:
			c.DeadlineReserve = d
		}
	}
}

// WithFIFOGroupIsolation narrows what a failure stops on a FIFO queue to
// the failed record's message group: later records of that group are
// reported as failures without running, while other groups go on.
// Defaults to off: as AWS documents for FIFO, every record after the first
// failure is reported as a failure.
func WithFIFOGroupIsolation() Option {
	return func(c *Config) { c.FIFOGroupIsolation = true }
}

// WithIdem sets how each record's key is claimed, extended and completed:
// the lease, the record expiry, the heartbeat and the clock, which are
// idem.Config's fields, declared and defaulted there. The options apply in
// order over idem.Config's defaults; the clock also times the deadline
// guard and the back-off. Defaults to none: idem.Config's defaults.
//
//	handler.WrapSQS(store, fn, handler.WithIdem(idem.WithExpiry(life), idem.WithHeartbeat(30*time.Second)))
func WithIdem(opts ...idem.Option) Option {
	return func(c *Config) {
		for i, opt := range opts {
			if opt == nil {
				c.invalid = append(c.invalid, &idem.ConfigError{Package: "idem", Field: fmt.Sprintf("options[%d]", i), Err: idem.ErrNil})
				continue
			}
			opt(&c.Idem)
		}
	}
}

// WithReplayHook calls f with the stored result of every record that is not
// executed because its key was done before. Like the function, f runs in
// the records' sequences: calls for different records may run at the same
// time (up to WithConcurrency, in each of the invocations the runtime runs
// at once), so f must be safe for concurrent use; within a batch, calls
// for one key, or one FIFO message group, come one after another, in
// input order. Defaults to none.
func WithReplayHook(f ReplayFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.refuse("OnReplay", "", idem.ErrNil)
		}
		c.OnReplay, c.replayType = f, nil
	}
}

// WithFailureHook calls f for every record reported as a batch item
// failure, with the reason. A batch calls it for its records one after
// another; batches that run at once (Lambda Managed Instances run
// AWS_LAMBDA_MAX_CONCURRENCY invocations in one process) call it at the
// same time, so f must be safe for concurrent use. Defaults to none
// (failures are logged).
func WithFailureHook(f FailureFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.refuse("OnFailure", "", idem.ErrNil)
		}
		c.OnFailure = f
	}
}

// WithCache keeps the results of up to maxEntries completed keys, and at
// most maxBytes of results, in memory across the invocations of a warm
// container, least recently used first out, so a duplicate delivered there
// costs no store request. An entry lasts no longer than the record it
// copies, and the payload fingerprint is still checked.
// Defaults to off.
func WithCache(maxEntries, maxBytes int) Option {
	return func(c *Config) {
		switch {
		case maxEntries < 1:
			c.refuse("CacheEntries", fmt.Sprint(maxEntries), errNotPositive)
		case maxBytes < 1:
			c.refuse("CacheBytes", fmt.Sprint(maxBytes), errNotPositive)
		}
		c.CacheEntries, c.CacheBytes = maxEntries, maxBytes
	}
}

// WithBackoff sets, through client, the visibility timeout of each record
// found in progress on another worker to about the time its lease has
// left, so the message comes back when a retry can succeed. The queue URL
// is derived from the record's event source ARN (see QueueURL) unless
// WithQueueURL is given. Defaults to off: the message comes back after the
// queue's visibility timeout.
func WithBackoff(client VisibilityChanger) Option {
	return func(c *Config) {
		if client == nil {
			c.refuse("Backoff", "", idem.ErrNil)
		}
		c.Backoff = client
	}
}

// WithQueueURL sets the queue URL WithBackoff uses. Defaults to the URL
// derived from each record's event source ARN.
func WithQueueURL(url string) Option {
	return func(c *Config) {
		if url == "" {
			c.refuse("QueueURL", `""`, errEmpty)
		}
		c.QueueURL = url
	}
}

// WithLogger sets the logger for the per-batch summary and per-record
// failures. Payloads and results are never logged. Defaults to
// slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) {
		if l == nil {
			c.refuse("Logger", "", idem.ErrNil)
		}
		c.Logger = l
	}
}

// WithEMF writes, after each batch, one CloudWatch Embedded Metric Format
// line with the batch's counts to w (in Lambda, os.Stdout) under the
// CloudWatch namespace ns, with the key namespace as dimension "Service".
// Each line is one Write, and the handler makes one at a time, also when
// the runtime runs invocations at once (Lambda Managed Instances), so w
// need not be safe for concurrent use. Defaults to off.
func WithEMF(w io.Writer, ns string) Option {
	return func(c *Config) {
		switch {
		case w == nil:
			c.refuse("EMF", "", idem.ErrNil)
		case ns == "":
			c.refuse("EMFNamespace", `""`, errEmpty)
		}
		c.EMF, c.EMFNamespace = w, ns
	}
}
