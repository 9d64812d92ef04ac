package handler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/leasectx"
	"github.com/idemq/idemq/internal/streamctx"
	"github.com/idemq/idemq/request"
)

// record is one SQS record's place in a batch: its message, its key and
// fingerprint, and its fate. Only the goroutine settling the record writes
// it; the batch reads it after that goroutine is waited for.
type record struct {
	msg     *events.SQSMessage
	key     idem.Key
	fp      string
	keyless bool       // has no key and runs without a claim (WithKeyless)
	id      request.ID // a step handler's record: its request, as read
	// run is a typed handler's record's work, readied by prepare from its
	// decoded body; nil: the wrapper's fn of the message.
	run  idem.Func
	fate fate // written by batch.assign only; zero: no outcome, so it comes back

	// ctx is the context of the record's span (Config.Tracer); nil when
	// tracing is off.
	ctx context.Context
}

// group is the record's FIFO message group ("" on a standard queue).
func (r *record) group() string { return r.msg.Attributes[groupAttribute] }

// batch is one invocation's records and what the wrapper shares with them.
type batch struct {
	ctx      context.Context
	w        *wrapper
	settings *settings
	records  []record
	fifo     bool
	// stream is set for an ordered stream's batch (the stream package's,
	// marked by internal/streamctx): it runs as a FIFO batch with message
	// group isolation (the group is the partition key), without SQS's
	// visibility back-off, queue URL or batch error.
	stream bool
	// gate keeps a FIFO batch in order around its failures, while it runs
	// and when it responds; nil on a standard queue.
	gate *fifoGate

	deadline    time.Time
	hasDeadline bool
	reserve     time.Duration
	// recCtx is the context records run under: it ends half the reserve
	// before the invocation's deadline.
	recCtx context.Context
	cancel context.CancelFunc
	// queueURL and endBatch are the batch's tracing (Config.Tracer):
	// the queue's URL, and the function that ends the batch's span; nil
	// when tracing is off.
	queueURL string
	endBatch func(BatchEnd)
	// settleBy is when a record's claim must be settled (completed or
	// released) even after recCtx ended: a quarter of the reserve before
	// the invocation's deadline, so the response still goes out. Zero: no
	// deadline.
	settleBy time.Time
}

func newBatch(ctx context.Context, w *wrapper, records []events.SQSMessage) *batch {
	b := &batch{ctx: ctx, w: w, settings: &w.settings, records: make([]record, len(records))}
	b.fifo = len(records) > 0 && isFIFO(records[0].EventSourceARN)
	if mark := streamctx.From(ctx); mark != nil {
		mark.See()
		b.fifo, b.stream = true, true
	}
	if w.settings.tracer != nil {
		ctx, b.endBatch, b.queueURL = startBatchSpan(ctx, &w.settings, records, b.fifo, b.stream)
		b.ctx = ctx
	}
	b.deadline, b.hasDeadline = ctx.Deadline()
	b.reserve = b.settings.reserve
	if b.hasDeadline && !b.settings.reserveSet {
		b.reserve = min(defaultDeadlineReserve, b.deadline.Sub(b.now())/2)
	}
	b.recCtx, b.cancel = ctx, func() {}
	if b.hasDeadline && b.reserve > 0 {
		b.recCtx, b.cancel = context.WithDeadline(ctx, b.deadline.Add(-b.reserve/2))
	}
	if b.hasDeadline {
		b.settleBy = b.deadline.Add(-b.reserve / 4)
	}
	if b.fifo {
		b.gate = newFIFOGate(b.settings.fifoGroupOnly || b.stream)
	}
	b.prepare(records)
	return b
}

// startBatchSpan starts the batch's span (tracing is on): the context
// the batch runs under, the function that ends the span, and the queue's
// URL ("" for a stream's batch).
func startBatchSpan(ctx context.Context, set *settings, records []events.SQSMessage, fifo, stream bool) (context.Context, func(BatchEnd), string) {
	url := set.queueURL
	if stream {
		url = ""
	} else if url == "" && len(records) > 0 {
		url, _ = queueURLFromARN(records[0].EventSourceARN) // "" if it is no SQS ARN
	}
	ctx, end := set.tracer.StartBatch(ctx, BatchStart{Records: records, QueueURL: url, FIFO: fifo})
	return ctx, end, url
}

func (b *batch) now() time.Time { return b.settings.claims.Clock.Now() }

// recordCtx is the context record rec's calls run under: its span's
// when tracing is on, else the batch's records' context.
func (b *batch) recordCtx(rec *record) context.Context {
	if rec.ctx != nil {
		return rec.ctx
	}
	return b.recCtx
}

// settleCtx is the context rec's claim is made and settled under: the
// record's context, with the batch's settle deadline.
func (b *batch) settleCtx(rec *record) context.Context {
	if b.settleBy.IsZero() {
		return b.recordCtx(rec)
	}
	return leasectx.WithSettleDeadline(b.recordCtx(rec), b.settleBy)
}

// assign sets record i's fate: the one place a fate is written.
func (b *batch) assign(i int, f fate) { b.records[i].fate = f }

// prepare reads every record's key and fingerprint, and, for a typed
// handler, decodes its body into its work: all before any claim. A record
// whose key or body cannot be read is decided here, as a failure at
// OpKey, without a claim.
func (b *batch) prepare(messages []events.SQSMessage) {
	for i := range messages {
		rec := &b.records[i]
		rec.msg = &messages[i]
		read := b.settings.reader.Read
		if b.w.step != nil {
			read = b.settings.reader.ReadKey // a step checks no payload
		}
		id, err := read(*rec.msg)
		switch {
		case err == nil && b.w.step != nil:
			rec.key, rec.id = id.Key, id
		case err == nil:
			rec.key, rec.fp = id.Key, id.Fingerprint
		case b.settings.keyless && errors.Is(err, idem.ErrNoKey):
			rec.keyless = true
		case errors.Is(err, request.ErrKeyFuncPanic):
			b.assign(i, decide(attempt{stage: stageKey, err: fmt.Errorf("%w in the key func: %w", ErrPanic, err)}))
			continue
		default:
			b.assign(i, decide(attempt{stage: stageKey, err: err}))
			continue
		}
		if b.w.decode != nil {
			if rec.run, err = b.w.decode(*rec.msg); err != nil {
				b.assign(i, decide(attempt{stage: stageKey, err: err}))
			}
		}
	}
}

// tooLate reports whether the deadline guard forbids starting a record.
func (b *batch) tooLate() bool {
	return b.hasDeadline && b.reserve > 0 && b.deadline.Sub(b.now()) < b.reserve
}
