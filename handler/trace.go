package handler

import (
	"context"

	"github.com/idemq/idemq/idem"
)

// outcomeOf is the outcome a record with fate f is traced with: the
// class the counts put it in (counts.add).
func outcomeOf(f *fate) RecordEnd {
	end := RecordEnd{TookOver: f.tookOver}
	switch {
	case f.work == workKeyless:
		end.Outcome = outcomeKeyless
	case f.work == workExecuted:
		end.Outcome = outcomeExecuted
	case f.work == workReplayed && f.from == fromCache:
		end.Outcome = outcomeCacheHit
	case f.work == workReplayed && f.from == fromLeader:
		end.Outcome = outcomeCopy
	case f.work == workReplayed:
		end.Outcome = outcomeReplayed
	case f.work == workInProgress:
		end.Outcome = outcomeInProgress
	case f.verdict == skip:
		end.Outcome = outcomeSkipped
	default:
		end.Outcome = outcomeFailed
	}
	if !f.acked() {
		_, end.Err = f.cause()
	}
	return end
}

// startRecordSpan starts record i's span (tracing is on) and keeps the
// context it returns for the record's calls.
func (b *batch) startRecordSpan(i int) func(RecordEnd) {
	rec := &b.records[i]
	var end func(RecordEnd)
	rec.ctx, end = b.settings.tracer.StartRecord(b.recCtx, RecordStart{Message: rec.msg, Index: i, QueueURL: b.queueURL, Key: rec.key})
	return end
}

// traceSettled traces record i, settled without running (found by
// prepare, or blocked by the FIFO gate), as a span that ends at once.
func (b *batch) traceSettled(i int) {
	if b.settings.tracer == nil {
		return
	}
	b.startRecordSpan(i)(outcomeOf(&b.records[i].fate))
}

// tracedStore is the store a Handler calls when tracing is on: each call
// in a span of Tracer.StartStoreCall.
type tracedStore struct {
	store  idem.Store
	tracer Tracer
}

func (s tracedStore) Claim(ctx context.Context, req idem.ClaimRequest) (c idem.Claim, err error) {
	err = s.call(ctx, idem.OpClaim, req.Key, func(ctx context.Context) (string, error) {
		if c, err = s.store.Claim(ctx, req); err != nil {
			return "", err
		}
		return c.String(), nil
	})
	return c, err
}

func (s tracedStore) Complete(ctx context.Context, c idem.Completion) error {
	return s.call(ctx, idem.OpComplete, c.Key, func(ctx context.Context) (string, error) {
		return "", s.store.Complete(ctx, c)
	})
}

func (s tracedStore) Release(ctx context.Context, key idem.Key, owner string) error {
	return s.call(ctx, idem.OpRelease, key, func(ctx context.Context) (string, error) {
		return "", s.store.Release(ctx, key, owner)
	})
}

func (s tracedStore) Extend(ctx context.Context, e idem.Extension) error {
	return s.call(ctx, idem.OpExtend, e.Key, func(ctx context.Context) (string, error) {
		return "", s.store.Extend(ctx, e)
	})
}

// call makes one store call in a span. A call that panics ends its span
// with ErrPanic, and the panic goes on.
func (s tracedStore) call(ctx context.Context, op idem.Op, key idem.Key, f func(context.Context) (string, error)) error {
	ctx, end := s.tracer.StartStoreCall(ctx, StoreCallStart{Op: op, Key: key})
	returned := false
	defer func() {
		if !returned {
			end(StoreCallEnd{Err: ErrPanic})
		}
	}()
	answer, err := f(ctx)
	returned = true
	end(StoreCallEnd{Claim: answer, Err: err})
	return err
}
