package handler

import (
	"context"
	"errors"
	"reflect"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// StepFunc settles one record of a batch by a means of its own instead of
// a claim in a store: a dispatcher hands the record's work on (package
// durable starts the Lambda durable execution its record key names). It
// returns nil once the work is held by something that will not lose it,
// and only then is the message deleted; any error brings the message
// back. id is the record's request as the step handler's reader read it
// (request.Reader.ReadKey: its record key, value and scope; no
// fingerprint). ctx ends half the deadline reserve before the
// invocation's deadline.
type StepFunc func(ctx context.Context, msg events.SQSMessage, id request.ID) error

// NewStepHandler returns a Handler that reads each record's request with
// reader and settles the record with step, through the batch machinery of
// New's handlers, so that a dispatcher answers a batch as they do:
//
//   - a record whose key cannot be read fails at OpKey, as New's does, and
//     its step does not run;
//   - records run WithConcurrency at a time, one goroutine per sequence; on
//     a FIFO queue a message group's records run in order, and no record
//     starts, nor is acknowledged, after a failure earlier in the batch
//     (WithFIFOGroupIsolation: in its message group): ErrFIFOBlocked;
//   - a record not started when less than the deadline reserve is left
//     fails with ErrDeadline (WithDeadlineReserve);
//   - a panic of step fails its record with ErrPanic, and a record whose
//     goroutine exits without an outcome fails with ErrNoOutcome;
//   - the response lists every record not acknowledged, in input order;
//     the invocation fails when a failed record has no message id, and,
//     unless WithoutBatchError, when every record of the batch comes back
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
// options are the batch's: WithConcurrency, WithDeadlineReserve,
// WithFIFOGroupIsolation, WithFailureHook, WithLogger and
// WithoutBatchError. NewStepHandler returns an *idem.ConfigError naming
// the setting if reader, step or an option is nil, if a setting cannot be
// safe (Config.Validate), or if a setting the step handler does not use is
// set: Request (the reader's), Keyless, Idem, OnReplay, the cache,
// Backoff, QueueURL, EMF or Tracer.
func NewStepHandler(reader *request.Reader, step StepFunc, opts ...Option) (Handler, error) {
	switch {
	case reader == nil:
		return nil, configError("reader", "", idem.ErrNil)
	case step == nil:
		return nil, configError("step", "", idem.ErrNil)
	}
	c, err := idem.ApplyOptions("handler", opts)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.unusedByStep(); err != nil {
		return nil, err
	}
	c.Request = reader.Identity()
	set, err := c.resolve()
	if err != nil {
		return nil, err
	}
	w := &wrapper{step: step, settings: set}
	return w.handle, nil
}

// unusedByStep refuses, for NewStepHandler, the first setting of c that a
// step handler does not use.
func (c *Config) unusedByStep() error {
	for _, s := range []struct {
		field string
		set   bool
		why   string
	}{
		{"Request", !reflect.ValueOf(c.Request).IsZero(), "is the reader's"},
		{"Keyless", c.Keyless, "is a claim's setting"},
		{"Idem", !reflect.ValueOf(c.Idem).IsZero(), "is a claim's setting"},
		{"OnReplay", c.OnReplay != nil, "is a claim's setting"},
		{"CacheEntries", c.CacheEntries != 0, "is a claim's setting"},
		{"CacheBytes", c.CacheBytes != 0, "is a claim's setting"},
		{"Backoff", c.Backoff != nil, "is a claim's setting"},
		{"QueueURL", c.QueueURL != "", "is a claim's setting"},
		{"EMF", c.EMF != nil, "is not written by a step handler"},
		{"Tracer", c.Tracer != nil, "is not told of a step handler's records"},
	} {
		if s.set {
			return configError(s.field, "", errors.New(s.why+": a step handler (NewStepHandler) cannot use it"))
		}
	}
	return nil
}

// runStep is the fate of a step handler's record: the deadline guard's,
// or its step's. A panic is the caller's settleRecovering's to recover.
func (b *batch) runStep(rec *record) fate {
	if b.tooLate() {
		return decide(attempt{stage: stageNotStarted, err: ErrDeadline})
	}
	err := b.w.step(b.recordCtx(rec), *rec.msg, rec.id)
	return decide(attempt{stage: stageStepped, err: err})
}
