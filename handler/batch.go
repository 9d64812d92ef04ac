package handler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// kind is what happened to one record.
type kind int

const (
	pending    kind = iota
	executed        // claimed, ran, result stored (or too large and omitted)
	replayed        // done before (store, cache, or a copy in this batch)
	keyless         // ran without idempotency (WithKeyless)
	inProgress      // another worker holds the key
	failed          // key, store, function, panic or hook failure
	skipped         // not started: deadline guard or FIFO block
)

// failure reports whether the record must come back.
func (k kind) failure() bool { return k >= inProgress }

// slot is one record's place in a batch; only the goroutine processing the
// record writes it, and readers wait for done.
type slot struct {
	msg     *events.SQSMessage
	key     idem.Key
	fp      string
	keyless bool
	// leader is the index of the first record with the same key (the one
	// that claims it); the slot's own index when it is that record.
	leader int
	done   chan struct{} // closed once out is final
	out    outcome
	// blocked: reported as a failure although it succeeded, because an
	// earlier FIFO record failed while it ran.
	blocked   bool
	backedOff bool
}

// outcome is a record's result.
type outcome struct {
	kind       kind
	value      []byte
	tookOver   bool
	omitted    bool // executed; the result was too large to store
	cached     bool
	leaseUntil time.Time
	err        *idem.Error // for failures
}

// batch runs one invocation's records.
type batch struct {
	ctx   context.Context
	w     *wrapper
	slots []slot
	fifo  bool
	body  body // the body of the record being prepared

	deadline    time.Time
	hasDeadline bool
	reserve     time.Duration
	// recCtx is the context records run under: it ends half the reserve
	// before the invocation's deadline.
	recCtx context.Context
	cancel context.CancelFunc

	sem          chan struct{} // FIFO: bounds the records running at once
	firstFailure atomic.Int64  // FIFO: lowest failed index so far
}

func newBatch(ctx context.Context, w *wrapper, records []events.SQSMessage) *batch {
	b := &batch{ctx: ctx, w: w, slots: make([]slot, len(records))}
	b.deadline, b.hasDeadline = ctx.Deadline()
	b.reserve = w.o.reserve
	if b.hasDeadline && !w.o.reserveSet {
		b.reserve = min(DefaultDeadlineReserve, b.deadline.Sub(w.o.clock.Now())/2)
	}
	b.recCtx, b.cancel = ctx, func() {}
	if b.hasDeadline && b.reserve > 0 {
		b.recCtx, b.cancel = context.WithDeadline(ctx, b.deadline.Add(-b.reserve/2))
	}
	b.fifo = len(records) > 0 && isFIFO(records[0].EventSourceARN)
	leaders := make(map[idem.Key]int, len(records))
	for i := range records {
		b.prepare(i, &records[i], leaders)
	}
	b.body = body{}
	return b
}

// prepare reads a record's key and fingerprint and finds its leader.
func (b *batch) prepare(i int, msg *events.SQSMessage, leaders map[idem.Key]int) {
	s := &b.slots[i]
	s.msg, s.leader, s.done = msg, i, make(chan struct{})
	o := &b.w.o
	// Records are prepared one at a time: one body serves them all.
	bd := &b.body
	*bd = body{msg: msg}
	raw, err := o.key(bd)
	if err != nil {
		if o.keyless && errors.Is(err, idem.ErrNoKey) {
			s.keyless = true
			return
		}
		s.out = b.failure(i, failed, "key", err)
		return
	}
	s.key, err = idem.ClientKey(o.namespace, raw)
	if err == nil {
		s.fp, err = o.fingerprint(bd)
	}
	if err != nil {
		s.out = b.failure(i, failed, "key", err)
		return
	}
	if j, ok := leaders[s.key]; ok {
		s.leader = j
	} else {
		leaders[s.key] = i
	}
}

// run processes every record and returns when all are done.
func (b *batch) run() {
	defer b.cancel()
	if b.fifo {
		b.runFIFO()
		return
	}
	// Workers take records in input order, so a record's leader (an
	// earlier record) has always been taken when the record waits for it.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(b.w.o.concurrency, len(b.slots)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(b.slots) {
					return
				}
				b.process(i)
			}
		})
	}
	wg.Wait()
}

// process settles one record: a failure found by prepare stays, a copy of
// an earlier key shares its outcome, a leader is executed.
func (b *batch) process(i int) {
	s := &b.slots[i]
	defer close(s.done)
	switch {
	case s.out.kind != pending:
	case s.leader != i:
		b.follow(i)
	default:
		if b.sem != nil {
			b.sem <- struct{}{}
			defer func() { <-b.sem }()
		}
		s.out = b.execute(i)
	}
	if s.out.kind == inProgress && b.w.o.sqs != nil {
		b.backoff(i)
	}
}

// tooLate reports whether the deadline guard forbids starting a record.
func (b *batch) tooLate() bool {
	return b.hasDeadline && b.reserve > 0 && b.deadline.Sub(b.w.o.clock.Now()) < b.reserve
}

// failure is a failed outcome for record i.
func (b *batch) failure(i int, k kind, op string, err error) outcome {
	s := &b.slots[i]
	return outcome{kind: k, err: recordError(op, s.key, s.msg.MessageId, err)}
}

// finish builds the response, in input order, and reports the batch.
func (b *batch) finish() (events.SQSEventResponse, error) {
	if b.fifo {
		b.blockAfterFailures()
	}
	var resp events.SQSEventResponse
	seen := make(map[string]bool)
	var noID error
	for i := range b.slots {
		s := &b.slots[i]
		if !s.out.kind.failure() && !s.blocked {
			continue
		}
		b.reportFailure(s)
		id := s.msg.MessageId
		if id == "" {
			noID = fmt.Errorf("handler: record %d failed and has no message id; failing the whole batch", i)
			continue
		}
		if !seen[id] {
			seen[id] = true
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
	}
	b.summarize(len(resp.BatchItemFailures))
	if noID != nil {
		b.w.o.logger.ErrorContext(b.ctx, noID.Error())
		return events.SQSEventResponse{}, noID
	}
	return resp, nil
}
