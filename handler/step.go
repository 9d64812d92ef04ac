package handler

import (
	"cmp"
	"context"
	"errors"
	"reflect"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// StepFunc settles one record of a batch by a means of its own instead of
// a claim in a store: a dispatcher hands the record's work on (package
// durable starts the Lambda durable execution its key names). It returns
// nil once the work is held by something that will not lose it, and only
// then is the message deleted; any error brings the message back. key is
// the record's key as the key reader returned it, without a namespace.
// ctx ends half the deadline reserve before the invocation's deadline.
type StepFunc func(ctx context.Context, msg events.SQSMessage, key string) error

// NewStepHandler returns a Handler that reads each record's key with key
// (a dispatcher's own request.Reader's, say) and settles the record with
// step, through the batch machinery of New's
// handlers, so that a dispatcher answers a batch as they do:
//
//   - a record whose key cannot be read (key returns an error or "", or
//     panics) fails at OpKey, and its step does not run;
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
//   - the log has New's lines: one "idemq: record comes back" per failure
//     (at level ERROR when its retry cannot succeed), one "idemq: batch"
//     summary, where a record step settled counts as dispatched.
//
// Copies of a key in a batch are not joined as New's are: each record runs
// its own step, which must therefore be idempotent by key (as a durable
// execution's name makes its start).
//
// It takes the options that concern the batch: WithConcurrency,
// WithDeadlineReserve, WithFIFOGroupIsolation, WithFailureHook,
// WithLogger, WithoutBatchError, and WithNamespace, which here only names
// the batch in its summary line (it defaults to the Lambda function's
// name, else the program's, without a warning: no key depends on it).
// It returns an *idem.ConfigError naming the setting if key, step or an
// option is nil, if a setting cannot be safe (Config.Validate), or if a
// setting only a claim uses is set: a key source of Config.Request (the
// key is key's), its FingerprintFields or NoFingerprint, Keyless, Idem,
// OnReplay, the cache, Backoff, QueueURL, EMF or Tracer.
func NewStepHandler(key KeyFunc, step StepFunc, opts ...Option) (Handler, error) {
	switch {
	case key == nil:
		return nil, configError("key", "", idem.ErrNil)
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
	if err := c.claimSettingSet(); err != nil {
		return nil, err
	}
	c.Request = request.Identity{
		Namespace:     cmp.Or(c.Request.Namespace, lambdacontext.FunctionName, programName(), "idemq"),
		KeyFunc:       key,
		NoFingerprint: true,
	}
	set, err := c.resolve()
	if err != nil {
		return nil, err
	}
	w := &wrapper{step: step, settings: set}
	return w.handle, nil
}

// claimSettingSet refuses, for NewStepHandler, the first setting of c that
// only a claim uses.
func (c *Config) claimSettingSet() error {
	for _, s := range []struct {
		field string
		set   bool
	}{
		{"Request.KeyField", c.Request.KeyField != ""},
		{"Request.KeyFields", len(c.Request.KeyFields) > 0},
		{"Request.KeyAttribute", c.Request.KeyAttribute != ""},
		{"Request.KeyFunc", c.Request.KeyFunc != nil},
		{"Keyless", c.Keyless},
		{"Request.FingerprintFields", len(c.Request.FingerprintFields) > 0},
		{"Request.NoFingerprint", c.Request.NoFingerprint},
		{"Idem", !reflect.ValueOf(c.Idem).IsZero()},
		{"OnReplay", c.OnReplay != nil},
		{"CacheEntries", c.CacheEntries != 0},
		{"CacheBytes", c.CacheBytes != 0},
		{"Backoff", c.Backoff != nil},
		{"QueueURL", c.QueueURL != ""},
		{"EMF", c.EMF != nil},
		{"Tracer", c.Tracer != nil},
	} {
		if s.set {
			return configError(s.field, "", errors.New("is a claim's setting: a step handler (NewStepHandler) claims nothing"))
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
	err := b.w.step(b.recordCtx(rec), *rec.msg, string(rec.key))
	return decide(attempt{stage: stageStepped, err: err})
}
