package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Option changes a Config; the constructors (New, NewTyped,
// NewStepHandler) apply them in order over the zero Config. An option only
// sets fields: a value that cannot be safe is stored as given, and the
// constructor refuses it, with every other bad setting (Config.Validate).
// A zero value (0, "", nil) sets the field's default (docs/options.md).
// A rarer setting has a Config field and no option of its own: set it with
// WithConfig, or with an Option of your own, as in
//
//	handler.Option(func(c *handler.Config) { c.NoBatchError = true })
type Option func(*Config)

// WithConfig sets the whole Config, as a program that builds one (from its
// environment, say) passes it: options after it change its fields, and
// options before it are overwritten. Defaults to the zero Config, every
// field its default.
func WithConfig(cfg Config) Option {
	cfg.Request = cfg.Request.Clone()
	return func(c *Config) { *c = cfg }
}

// WithRequest sets who each record's request is, whole: its namespace,
// where its key comes from, its fingerprint (Config.Request), as in
//
//	handler.WithRequest(request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}})
//
// Pass the same request.Identity to the producer, the front door, the
// dispatcher and the command, so that all of them name a request by one
// key. Defaults to the zero request.Identity: the key is the body field
// request.DefaultKeyField, the namespace the function's name
// (request.DefaultNamespace), the fingerprint the whole body.
func WithRequest(id request.Identity) Option {
	id = id.Clone()
	return func(c *Config) { c.Request = id }
}

// WithKeyless runs records that carry no key without idempotency: each
// delivery runs the function, as a plain batch processor would, with the
// partial batch response, sequences, FIFO order and hooks of the rest. Such
// records are counted as keyless in the batch's summary line (and EMF
// metric Keyless) and logged one by one at debug level only, so a queue
// whose messages mostly carry no key does not flood the log. A body that
// is not valid JSON still fails. It is the handler's own setting, not the
// request's (request.Identity): what every part names a request by does
// not change, and only the handler meets a record that has none. Defaults
// to off: a record without a key is a batch item failure, so it reaches
// the dead-letter queue.
func WithKeyless() Option {
	return func(c *Config) { c.Keyless = true }
}

// WithConcurrency sets how many records of a batch run at once
// (Config.Concurrency); a negative n is refused. Defaults to
// DefaultConcurrency.
func WithConcurrency(n int) Option {
	return func(c *Config) { c.Concurrency = n }
}

// WithIdem applies opts, in order, to Config.Idem: how each record's key
// is claimed, extended and completed (the lease, the record expiry, the
// heartbeat, the clock), idem.Config's fields, declared, defaulted and
// checked there; idem.WithConfig sets it whole. The clock also times the
// deadline guard and the back-off. Like every idemq option that takes
// idem options, WithIdem returns nil when one of opts is nil, and the
// constructor refuses a nil option. Defaults to none: idem.Config's
// defaults.
//
//	handler.New(store, fn, handler.WithIdem(idem.WithExpiry(life), idem.WithHeartbeat(30*time.Second)))
func WithIdem(opts ...idem.Option) Option {
	for _, opt := range opts {
		if opt == nil {
			return nil
		}
	}
	opts = slices.Clone(opts)
	return func(c *Config) {
		for _, opt := range opts {
			opt(&c.Idem)
		}
	}
}

// WithReplayHook calls f with the stored result of every record that is not
// executed because its key was done before, by an earlier delivery or by a
// copy in the same batch (Config.OnReplay); an error fails the record, so
// the message comes back and f runs again. Like the function, f runs in the records' sequences: calls for different records
// may run at the same time (up to WithConcurrency, in each of the
// invocations the runtime runs at once), so f must be safe for concurrent
// use; within a batch, calls for one key, or one FIFO message group, come
// one after another, in input order. Defaults to none.
func WithReplayHook(f func(ctx context.Context, msg events.SQSMessage, result []byte) error) Option {
	return func(c *Config) { c.OnReplay, c.replayType = f, nil }
}

// WithTypedReplayHook is WithReplayHook for a typed function (NewTyped):
// f receives the stored result decoded from its JSON form into a Resp,
// which must be the function's result type (NewTyped refuses another).
// A stored result that does not decode fails the record with
// idem.ErrUnreadableResult, and the message comes back.
// It runs as WithReplayHook's hook does; the last of the two given is
// used. Defaults to none.
func WithTypedReplayHook[Resp any](f func(ctx context.Context, msg events.SQSMessage, result Resp) error) Option {
	if f == nil {
		return WithReplayHook(nil)
	}
	hook := func(ctx context.Context, msg events.SQSMessage, result []byte) error {
		var resp Resp
		if err := json.Unmarshal(result, &resp); err != nil {
			return fmt.Errorf("%w: the stored result is not a %s: %w", idem.ErrUnreadableResult, reflect.TypeFor[Resp](), err)
		}
		return f(ctx, msg, resp)
	}
	return func(c *Config) { c.OnReplay, c.replayType = hook, reflect.TypeFor[Resp]() }
}

// WithFailureHook calls f for every record reported as a batch item
// failure, with the reason (Config.OnFailure). A batch calls it for its
// records one after another; batches that run at once (Lambda Managed
// Instances run AWS_LAMBDA_MAX_CONCURRENCY invocations in one process)
// call it at the same time, so f must be safe for concurrent use. Defaults
// to none (failures are logged).
func WithFailureHook(f func(ctx context.Context, msg events.SQSMessage, err error)) Option {
	return func(c *Config) { c.OnFailure = f }
}

// WithBackoff sets, through client, the visibility timeout of each record
// found in progress on another worker to about the time its lease has
// left, so the message comes back when a retry can succeed
// (Config.Backoff). The queue URL is derived from the record's event
// source ARN (see QueueURL) unless Config.QueueURL is set. Defaults to off:
// the message comes back after the queue's visibility timeout.
func WithBackoff(client VisibilityChanger) Option {
	return func(c *Config) { c.Backoff = client }
}

// WithLogger sets the logger for the per-batch summary and per-record
// failures (Config.Logger). Payloads and results are never logged.
// Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) { c.Logger = l }
}

// WithEMF writes, after each batch, one CloudWatch Embedded Metric Format
// line with the batch's counts to w (in Lambda, os.Stdout) under the
// CloudWatch namespace ns, with the key namespace as dimension "Service"
// (Config.EMF, Config.EMFNamespace: both or neither). Each line is one
// Write, and the handler makes one at a time, also when the runtime runs
// invocations at once (Lambda Managed Instances), so w need not be safe
// for concurrent use. Defaults to off.
func WithEMF(w io.Writer, ns string) Option {
	return func(c *Config) { c.EMF, c.EMFNamespace = w, ns }
}

// WithTracer sets the tracing hook (Config.Tracer; see Tracer);
// idemqotel.WithTracing sets it to OpenTelemetry's. Defaults to nil: off,
// at the cost of a nil check.
func WithTracer(t Tracer) Option {
	return func(c *Config) { c.Tracer = t }
}
