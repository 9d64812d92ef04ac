package handler

import (
	"errors"
	"reflect"
)

// unusedByStep refuses, for NewStepHandler, every setting of c that a
// step handler does not use.
func (c *Config) unusedByStep() error {
	var errs []error
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
			errs = append(errs, configError(s.field, "", errors.New(s.why+": a step handler (NewStepHandler) cannot use it")))
		}
	}
	return errors.Join(errs...)
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
