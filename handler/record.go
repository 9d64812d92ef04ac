package handler

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/idemq/idemq/idem"
)

// execute claims a leader's key and runs the function, or replays the
// stored result.
func (b *batch) execute(i int) outcome {
	s := &b.slots[i]
	if b.tooLate() {
		return b.failure(i, skipped, "run", ErrDeadline)
	}
	if s.keyless {
		return b.runKeyless(i)
	}
	if value, fp, ok := b.w.cache.get(s.key); ok {
		if s.fp != "" && fp != "" && s.fp != fp {
			return b.failure(i, failed, "claim", idem.ErrPayloadMismatch)
		}
		return b.replay(i, value, true)
	}
	res, err := b.do(s)
	if err != nil {
		switch {
		case res.Outcome == idem.Executed && res.Omitted && errors.Is(err, idem.ErrResultTooLarge):
			// The work ran and the key is settled without its result: a
			// redelivery could only replay nothing, so the message is
			// acknowledged, loudly.
			b.w.o.logger.ErrorContext(b.ctx, "idemq: result not stored: too large; the key is completed without it",
				"message_id", s.msg.MessageId, "key", string(s.key), "result_bytes", len(res.Value), "err", err)
		case res.Outcome == idem.Executed && errors.Is(err, idem.ErrLeaseLost):
			// The work ran, but its lease had passed and another worker
			// took the key over: that worker's delivery settles the key.
			// Ours is done; reporting it would only run the work once more.
			b.w.o.logger.WarnContext(b.ctx, "idemq: result not stored: the lease was taken over",
				"message_id", s.msg.MessageId, "key", string(s.key), "err", err)
		default:
			return b.failure(i, failed, "run", err)
		}
	}
	switch res.Outcome {
	case idem.Executed:
		if err == nil {
			b.w.cache.put(s.key, s.fp, res.Value)
		}
		return outcome{kind: executed, value: res.Value, tookOver: res.TookOver, omitted: res.Omitted}
	case idem.Replayed:
		if res.Omitted {
			return b.replayOmitted(i)
		}
		b.w.cache.put(s.key, s.fp, res.Value)
		return b.replay(i, res.Value, false)
	case idem.InProgress:
		o := b.failure(i, inProgress, "claim", ErrInProgress)
		o.leaseUntil = res.LeaseUntil
		return o
	}
	return b.failure(i, failed, "claim", fmt.Errorf("handler: unknown outcome %v", res.Outcome))
}

// do runs idem.Do for a slot, turning a panic of the function into an
// error (Do has released the claim before passing the panic on).
func (b *batch) do(s *slot) (res idem.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = b.panicked(s, p)
		}
	}()
	msg := *s.msg
	return idem.Do(b.recCtx, b.w.store, s.key, s.fp, func(ctx context.Context) ([]byte, error) {
		return b.w.fn(ctx, msg)
	}, b.w.doOpts...)
}

// runKeyless runs the function without a claim (WithKeyless).
func (b *batch) runKeyless(i int) (o outcome) {
	s := &b.slots[i]
	b.w.o.logger.WarnContext(b.ctx, "idemq: record has no key; running it without idempotency",
		"message_id", s.msg.MessageId, "key_from", b.w.o.keyName)
	defer func() {
		if p := recover(); p != nil {
			o = b.failure(i, failed, "run", b.panicked(s, p))
		}
	}()
	if _, err := b.w.fn(b.recCtx, *s.msg); err != nil {
		return b.failure(i, failed, "run", err)
	}
	return outcome{kind: keyless}
}

// follow gives a copy of an earlier record's key that record's outcome:
// one claim, one execution, the same result for every copy.
func (b *batch) follow(i int) {
	s := &b.slots[i]
	l := &b.slots[s.leader]
	<-l.done
	lo := l.out
	switch {
	case s.fp != "" && l.fp != "" && s.fp != l.fp:
		s.out = b.failure(i, failed, "claim", idem.ErrPayloadMismatch)
	case lo.kind == executed || lo.kind == replayed:
		s.out = b.replay(i, lo.value, false)
	default: // in progress, failed or skipped: the copy comes back too
		s.out = outcome{kind: lo.kind, leaseUntil: lo.leaseUntil,
			err: recordError(lo.err.Op, s.key, s.msg.MessageId, lo.err)}
	}
}

// replay hands a stored result to the replay hook.
func (b *batch) replay(i int, value []byte, cached bool) (o outcome) {
	s := &b.slots[i]
	o = outcome{kind: replayed, value: value, cached: cached}
	hook := b.w.o.onReplay
	if hook == nil {
		return o
	}
	defer func() {
		if p := recover(); p != nil {
			o = b.failure(i, failed, "replay", b.panicked(s, p))
		}
	}()
	if err := hook(b.recCtx, *s.msg, value); err != nil {
		return b.failure(i, failed, "replay", fmt.Errorf("%w: %w", ErrReplayHook, err))
	}
	return o
}

// replayOmitted settles a duplicate of a key completed without its result,
// which was too large to store. Without a replay hook it is replayed (there
// is nothing to hand over); with one it fails, wrapping
// idem.ErrResultTooLarge, rather than pass the hook nil for a result: the
// message goes on to the dead-letter queue.
func (b *batch) replayOmitted(i int) outcome {
	if b.w.o.onReplay == nil {
		return outcome{kind: replayed}
	}
	return b.failure(i, failed, "replay",
		fmt.Errorf("handler: nothing to replay: the key was completed without its result: %w", idem.ErrResultTooLarge))
}

// panicked logs a recovered panic with its stack and returns it as an
// error.
func (b *batch) panicked(s *slot, p any) error {
	b.w.o.logger.ErrorContext(b.ctx, "idemq: panic in record",
		"message_id", s.msg.MessageId, "key", string(s.key), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return fmt.Errorf("%w: %v", ErrPanic, p)
}
