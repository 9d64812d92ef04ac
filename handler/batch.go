package handler

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// slot is one record's place in a batch. Only the goroutine settling the
// record writes it; the batch reads it after that goroutine is waited for.
type slot struct {
	msg     *events.SQSMessage
	key     idem.Key
	fp      string
	keyless bool
	res     result
}

// result is what happened to one record. Its zero value is "no outcome",
// which is reported as a failure: a record is acknowledged only when a
// result says it may be.
type result struct {
	// Result is the claim's: Outcome Executed (also for a keyless run),
	// Replayed or InProgress; 0 when the record never got that far.
	idem.Result
	keyless   bool   // ran without a claim (WithKeyless)
	cached    bool   // replayed from the local cache
	backedOff bool   // in progress; its visibility was changed
	err       error  // why the record comes back; nil for an acknowledged one
	op        string // the stage err comes from (RecordError.Op)
}

// failed is the result of a record that failed at stage op.
func failed(op string, err error) result { return result{op: op, err: err} }

// acked reports whether the record may be deleted from the queue: its
// key is settled, by this execution (Executed), an earlier one (Replayed)
// or another claim's, which completed it (Superseded; execute fails a
// Superseded record whose key is still in progress).
func (r *result) acked() bool {
	return r.err == nil && (r.Outcome == idem.Executed || r.Outcome == idem.Replayed || r.Outcome == idem.Superseded)
}

// settled reports whether the record has an outcome, good or bad.
func (r *result) settled() bool { return r.err != nil || r.Outcome != 0 }

// batch is one invocation's records and what the wrapper shares with them.
type batch struct {
	ctx   context.Context
	w     *wrapper
	o     *options
	slots []slot
	fifo  bool

	deadline    time.Time
	hasDeadline bool
	reserve     time.Duration
	// recCtx is the context records run under: it ends half the reserve
	// before the invocation's deadline.
	recCtx context.Context
	cancel context.CancelFunc
	// settleBy is when a record's claim must be settled (completed or
	// released) even after recCtx ended: a quarter of the reserve before
	// the invocation's deadline, so the response still goes out. Zero: no
	// deadline.
	settleBy time.Time
}

func newBatch(ctx context.Context, w *wrapper, records []events.SQSMessage) *batch {
	b := &batch{ctx: ctx, w: w, o: &w.o, slots: make([]slot, len(records))}
	b.deadline, b.hasDeadline = ctx.Deadline()
	b.reserve = b.o.reserve
	if b.hasDeadline && !b.o.reserveSet {
		b.reserve = min(DefaultDeadlineReserve, b.deadline.Sub(b.now())/2)
	}
	b.recCtx, b.cancel = ctx, func() {}
	if b.hasDeadline && b.reserve > 0 {
		b.recCtx, b.cancel = context.WithDeadline(ctx, b.deadline.Add(-b.reserve/2))
	}
	if b.hasDeadline {
		b.settleBy = b.deadline.Add(-b.reserve / 4)
	}
	b.fifo = len(records) > 0 && isFIFO(records[0].EventSourceARN)
	b.prepare(records)
	return b
}

func (b *batch) now() time.Time { return b.o.claims.Clock.Now() }

// settleCtx is the context a record's claim is made and settled under:
// the records' context, with the batch's settle deadline.
func (b *batch) settleCtx() context.Context {
	if b.settleBy.IsZero() {
		return b.recCtx
	}
	return idem.WithSettleDeadline(b.recCtx, b.settleBy)
}

// prepare reads every record's key and fingerprint. A record whose key
// cannot be read is settled here as a failure.
func (b *batch) prepare(records []events.SQSMessage) {
	var bd body // records are prepared one at a time: one body serves them all
	for i := range records {
		s := &b.slots[i]
		s.msg = &records[i]
		bd = body{msg: s.msg}
		raw, err := b.o.key(&bd)
		if err != nil {
			if b.o.keyless && errors.Is(err, idem.ErrNoKey) {
				s.keyless = true
				continue
			}
			s.res = failed("key", err)
			continue
		}
		if s.key, err = idem.ClientKey(b.o.namespace, raw); err == nil {
			s.fp, err = b.o.fingerprint(&bd)
		}
		if err != nil {
			s.res = failed("key", err)
		}
	}
}

// tooLate reports whether the deadline guard forbids starting a record.
func (b *batch) tooLate() bool {
	return b.hasDeadline && b.reserve > 0 && b.deadline.Sub(b.now()) < b.reserve
}
