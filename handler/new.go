package handler

import (
	"context"
	"errors"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// New returns a Lambda handler that runs fn for each record of an SQS
// batch at most once per idempotency key, claiming the key in store first,
// and reports the records that must come back as batch item failures:
//
//	h, err := handler.New(store, fn)
//	if err != nil {
//		return err
//	}
//	lambda.Start(h)
//
// With no options the key is the body's "idempotency_key" field, namespaced
// by the function's name, and the whole body is the payload fingerprint.
//
// Outside Lambda, without a namespace (WithRequest), the namespace is the program's
// name (its executable's base name, like "handler.test"), with a warning
// logged: fine for tests and local runs, not for a table that other
// programs share. New returns an error joining an *idem.ConfigError for
// every bad setting (joined): store, fn or an option is
// nil, a setting cannot be safe (Config.Validate), or there is no
// namespace to be had. The handler returns an error when a failed record
// has no message id (Lambda could not be told which one failed, so the
// whole batch must come back), and, unless Config.NoBatchError,
// ErrBatchFailed when no message of the batch is acknowledged and one
// record at least failed; store errors fail the records they touch.
func New(store idem.Store, fn Func, opts ...Option) (Handler, error) {
	c, optErr := optkit.ApplyOptions("handler", opts)
	return newHandler(&wrapper{store: store, fn: fn}, c, nilArg("store", store == nil), nilArg("fn", fn == nil), optErr)
}

// NewStepHandler returns a Handler that reads each record's request with
// reader and settles the record with step, through the batch machinery of
// New's handlers, so that a dispatcher answers a batch as they do:
//
//   - a record whose key cannot be read fails at OpKey, as New's does, and
//     its step does not run;
//   - records run WithConcurrency at a time, one goroutine per sequence; on
//     a FIFO queue a message group's records run in order, and no record
//     starts, nor is acknowledged, after a failure earlier in the batch
//     (Config.FIFOGroupIsolation: in its message group): ErrFIFOBlocked;
//   - a record not started when less than the deadline reserve is left
//     fails with ErrDeadline (Config.DeadlineReserve);
//   - a panic of step fails its record with ErrPanic, and a record whose
//     goroutine exits without an outcome fails with ErrNoOutcome;
//   - the response lists every record not acknowledged, in input order;
//     the invocation fails when a failed record has no message id, and,
//     unless Config.NoBatchError, when every record of the batch comes back
//     and one at least failed (ErrBatchFailed);
//   - the log has New's lines, with the record key a handler given the
//     same request.Identity claims: one "idemq: record comes back" per
//     failure (at level ERROR when its retry cannot succeed), one "idemq:
//     batch" summary, where a record step settled counts as dispatched.
//
// Copies of a key in a batch are not joined as New's are: each record runs
// its own step, which must therefore be idempotent by key (as a durable
// execution's name makes its start).
//
// reader's Identity is the request's, whole: its namespace (defaulted as
// New defaults it when empty) names the batch in its summary line. The
// options are the batch's: WithConcurrency, Config.DeadlineReserve,
// Config.FIFOGroupIsolation, WithFailureHook, WithLogger and
// Config.NoBatchError. NewStepHandler returns an error joining an
// *idem.ConfigError for each bad setting: reader, step or an option is
// nil, a setting cannot be safe (Config.Validate), or a setting the step
// handler does not use is set: Request (the reader's), Keyless, Idem,
// OnReplay, the cache, Backoff, QueueURL, EMF or Tracer.
func NewStepHandler(reader *request.Reader, step StepFunc, opts ...Option) (Handler, error) {
	c, optErr := optkit.ApplyOptions("handler", opts)
	errs := []error{nilArg("reader", reader == nil), nilArg("step", step == nil), optErr, c.unusedByStep()}
	c.Request = request.Identity{}
	if reader != nil {
		c.Request = reader.Identity()
	}
	return newHandler(&wrapper{step: step}, c, errs...)
}

// nilArg is the error of a constructor's argument name when it is nil.
func nilArg(name string, isNil bool) error {
	if !isNil {
		return nil
	}
	return configError(name, "", optkit.ErrNil)
}

// newHandler resolves c into w's settings and returns w's handler: the
// one step every constructor ends with, so that each reports, joined with
// errs (its own checks), every setting that cannot be safe at once.
func newHandler(w *wrapper, c Config, errs ...error) (Handler, error) {
	set, err := c.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	if set.programNamespace {
		set.logger.Warn("idemq: no namespace (AWS_LAMBDA_FUNCTION_NAME is unset); using the program's name. "+
			"Programs sharing a table must each set it (handler.WithRequest)", "namespace", set.namespace)
	}
	if set.tracer != nil && w.store != nil {
		w.store = tracedStore{store: w.store, tracer: set.tracer}
	}
	if set.cacheEntries > 0 {
		w.cache = newCache(set.cacheEntries, set.cacheBytes)
	}
	w.settings = set
	return w.handle, nil
}

// handle is the Handler: one batch, read, run and answered.
func (w *wrapper) handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	b := newBatch(ctx, w, event.Records)
	b.run()
	resp, err := b.respond()
	if b.endBatch != nil {
		b.endBatch(BatchEnd{Failures: len(resp.BatchItemFailures), Err: err})
	}
	return resp, err
}
