package handler

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// settle claims a record's key and runs the function, or replays the
// stored result, then gives an in-progress record's message back at its
// lease's end (WithBackoff).
func (b *batch) settle(i int) {
	s := &b.slots[i]
	s.res = b.execute(s)
	if s.res.Outcome == idem.InProgress && b.o.sqs != nil {
		b.backoff(s)
	}
}

// execute is the result of a record that claims its key, or takes the
// outcome of another batch of this process settling it (flights).
func (b *batch) execute(s *slot) (r result) {
	if b.tooLate() {
		return failed("run", ErrDeadline)
	}
	if s.keyless {
		return b.runKeyless(s)
	}
	if c, ok := b.w.cache.get(s.key, b.now()); ok {
		if s.fp != "" && c.fingerprint != "" && s.fp != c.fingerprint {
			return failed("claim", idem.ErrPayloadMismatch)
		}
		return b.replay(s, idem.Result{Outcome: idem.Replayed, Value: c.value, ExpiresAt: c.expiresAt}, true)
	}
	for {
		f, lead := b.w.flights.join(s.key, s.fp)
		if lead {
			// However the claim ends (a panic too: r is then zero, no
			// outcome), the waiters get its result.
			defer func() { b.w.flights.land(s.key, f, r) }()
			break
		}
		if r, ok := b.awaitFlight(s, f); ok {
			return r
		}
	}
	return b.claim(s)
}

// claim claims a record's key and runs the function, or replays the
// stored result.
func (b *batch) claim(s *slot) result {
	msg := *s.msg
	res, err := b.o.claims.Do(b.settleCtx(), b.w.store, s.key, s.fp, func(ctx context.Context) ([]byte, error) {
		return b.w.fn(withKey(ctx, s.key), msg)
	})
	// The outcome decides, never the error: Do says from the completion's
	// own answer whether the key is settled.
	switch res.Outcome {
	case idem.Executed:
		switch {
		case err == nil:
			b.w.cache.put(s.key, s.fp, res)
		case res.Omitted:
			// The work ran and the key is settled without its result: a
			// redelivery could only replay nothing, so the message is
			// acknowledged, loudly.
			b.o.logger.ErrorContext(b.ctx, "idemq: result not stored: too large; the key is completed without it",
				"message_id", s.msg.MessageId, "key", string(s.key), "result_bytes", len(res.Value), "err", err)
		default:
			return failed(doOp(err), err)
		}
		return result{Result: res}
	case idem.Superseded:
		// The work ran, but its lease had passed and another claim owns
		// the key. Only a completed key is settled: one still in progress
		// may yet fail, and that claim may be working from an older
		// delivery of this very message, whose failure would bring
		// nothing back. So this message comes back, to replay that
		// claim's result, wait for it, or run the work again.
		b.o.logger.WarnContext(b.ctx, "idemq: result not stored: the lease was taken over",
			"message_id", s.msg.MessageId, "key", string(s.key), "holder", string(res.Holder), "err", err)
		if res.Holder != idem.StatusCompleted {
			return failed("complete", err)
		}
		return result{Result: res}
	case idem.Replayed:
		if err != nil {
			return failed(doOp(err), err)
		}
		if res.Omitted {
			return b.replayOmitted(res)
		}
		b.w.cache.put(s.key, s.fp, res)
		return b.replay(s, res, false)
	case idem.InProgress:
		return result{Result: res, op: "claim", err: ErrInProgress}
	}
	if err != nil {
		// NotStored, or the claim or the work failed: the message comes
		// back.
		return failed(doOp(err), err)
	}
	return failed("claim", fmt.Errorf("handler: idem.Do returned outcome %v without an error", res.Outcome))
}

// doOp is the stage of idem.Do an error comes from.
func doOp(err error) string {
	if ie, ok := errors.AsType[*idem.Error](err); ok {
		return ie.Op
	}
	return "claim"
}

// runKeyless runs the function without a claim (WithKeyless). A panic is
// the batch's guard's to recover.
func (b *batch) runKeyless(s *slot) result {
	b.o.logger.DebugContext(b.ctx, "idemq: record has no key; running it without idempotency",
		"message_id", s.msg.MessageId, "key_from", b.o.keyName)
	value, err := b.w.fn(b.recCtx, *s.msg)
	if err != nil {
		return failed("run", err)
	}
	return result{Result: idem.Result{Outcome: idem.Executed, Value: value}, keyless: true}
}

// follow gives record i, a copy of record j's key, j's result: one
// claim, one execution, the same result for every copy.
func (b *batch) follow(i, j int) {
	s := &b.slots[i]
	l := &b.slots[j].res
	switch {
	case s.fp != "" && b.slots[j].fp != "" && s.fp != b.slots[j].fp:
		s.res = failed("claim", idem.ErrPayloadMismatch)
	case l.acked():
		s.res = b.replay(s, idem.Result{Outcome: idem.Replayed, Value: l.Value, ExpiresAt: l.ExpiresAt}, false)
	case l.Outcome == idem.InProgress:
		s.res = result{Result: idem.Result{Outcome: idem.InProgress, LeaseUntil: l.LeaseUntil}, op: l.op, err: l.err}
		if b.o.sqs != nil {
			b.backoff(s)
		}
	case l.err != nil:
		s.res = failed(l.op, l.err) // failed or not started: the copy comes back too
	default:
		s.res = failed("run", ErrNoOutcome)
	}
}

// replay hands a stored result to the replay hook. A panic is the batch's
// guard's to recover.
func (b *batch) replay(s *slot, res idem.Result, cached bool) result {
	if hook := b.o.onReplay; hook != nil {
		if err := hook(withKey(b.recCtx, s.key), *s.msg, res.Value); err != nil {
			return failed("replay", fmt.Errorf("%w: %w", ErrReplayHook, err))
		}
	}
	return result{Result: res, cached: cached}
}

// replayOmitted settles a duplicate of a key completed without its result,
// which was too large to store. Without a replay hook it is replayed (there
// is nothing to hand over); with one it fails, wrapping
// idem.ErrResultTooLarge, rather than pass the hook nil for a result: the
// message goes on to the dead-letter queue.
func (b *batch) replayOmitted(res idem.Result) result {
	if b.o.onReplay == nil {
		return result{Result: res}
	}
	return failed("replay", fmt.Errorf("handler: nothing to replay: the key was completed without its result: %w", idem.ErrResultTooLarge))
}
