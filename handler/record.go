package handler

import (
	"context"

	"github.com/idemq/idemq/idem"
)

// claimOrAdopt is the fate of a record that leads its key in its
// sequence: the deadline guard's, a keyless run's, or its key's, which it
// adopts from the local cache or from another batch of this process
// settling the key (flights), or else claims and runs (claimAndRun).
func (b *batch) claimOrAdopt(rec *record) (f fate) {
	if b.tooLate() {
		return decide(attempt{stage: stageNotStarted, err: ErrDeadline})
	}
	if rec.keyless {
		return b.runKeyless(rec)
	}
	if e, ok := b.w.cache.get(rec.key, b.now()); ok {
		cached := fate{verdict: acknowledge, work: workReplayed, value: e.value, expiresAt: e.expiresAt}
		f, _ := b.adopt(rec, e.fingerprint, cached, fromCache)
		return f
	}
	for {
		fl, lead := b.w.flights.join(rec.key, rec.fp)
		if lead {
			// However the claim ends (a panic too: f is then zero, no
			// outcome), the waiters get its fate.
			defer func() { b.w.flights.finish(rec.key, fl, f) }()
			break
		}
		if f, ok := b.awaitFlight(rec, fl); ok {
			return f
		}
	}
	return b.claimAndRun(rec)
}

// claimAndRun claims a record's key with idem.Do and runs the function, or
// replays the stored result, and decides the record's fate from what Do
// returns. A panic is the caller's settleRecovering's to recover.
func (b *batch) claimAndRun(rec *record) fate {
	res, err := b.settings.claims.Do(b.settleCtx(rec), b.w.store, rec.key, rec.fp, func(ctx context.Context) ([]byte, error) {
		return b.runWork(withKey(ctx, rec.key), rec)
	})
	f := decide(attempt{stage: stageClaimed, res: res, err: err})
	switch {
	case res.Outcome == idem.Superseded:
		b.settings.logger.WarnContext(b.ctx, "idemq: result not stored: the lease was taken over",
			"message_id", rec.msg.MessageId, "key", string(rec.key), "holder", string(res.Holder), "err", err)
	case f.acked() && f.work == workExecuted && f.omitted:
		b.settings.logger.ErrorContext(b.ctx, "idemq: result not stored: too large; the key is completed without it",
			"message_id", rec.msg.MessageId, "key", string(rec.key), "result_bytes", len(res.Value), "err", err)
	}
	if f.acked() && !f.superseded && (f.work == workExecuted || f.work == workReplayed) {
		b.w.cache.put(rec.key, rec.fp, res) // an omitted result is not kept
	}
	if f.work == workReplayed {
		f = b.handOver(rec, f)
	}
	return f
}

// runKeyless runs the function without a claim (WithKeyless). A panic is
// the caller's settleRecovering's to recover.
func (b *batch) runKeyless(rec *record) fate {
	b.settings.logger.DebugContext(b.ctx, "idemq: record has no key; running it without idempotency",
		"message_id", rec.msg.MessageId, "key_from", b.settings.keyName)
	value, err := b.runWork(b.recordCtx(rec), rec)
	return decide(attempt{stage: stageKeyless, res: idem.Result{Outcome: idem.Executed, Value: value}, err: err})
}

// settleCopy is the fate of rec, a copy of leader's key in the same
// batch: one claim, one execution, the same result for every copy. A copy
// of a leader that failed comes back too, for the same reason.
func (b *batch) settleCopy(rec, leader *record) fate {
	if f, ok := b.adopt(rec, leader.fp, leader.fate, fromLeader); ok {
		return f
	}
	return retried(leader.fate.cause())
}

// runWork runs rec's work under ctx: the typed function prepare readied
// from its body, or the wrapper's fn of its message.
func (b *batch) runWork(ctx context.Context, rec *record) ([]byte, error) {
	if rec.run != nil {
		return rec.run(ctx)
	}
	return b.w.fn(ctx, *rec.msg)
}
