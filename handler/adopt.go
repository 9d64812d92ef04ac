package handler

import (
	"fmt"

	"github.com/idemq/idemq/idem"
)

// adopt gives record rec the fate of its key's leader: the record that
// settled the key earlier in the batch (rec is a copy), the local cache's
// entry (from is fromCache), or the record of another batch of this
// process whose flight rec waited for. It is the one place a leader's result is taken:
// one fingerprint comparison, one policy for an omitted result, one call
// of the replay hook. It returns false when the leader settled nothing to
// take (it failed, was not started, or ended without an outcome): the
// caller decides what then becomes of rec.
func (b *batch) adopt(rec *record, leaderFP string, leader fate, from source) (fate, bool) {
	f, ok := adoption(rec.fp, leaderFP, leader, from)
	if ok && f.work == workReplayed {
		f = b.handOver(rec, f)
	}
	return f, ok
}

// adoption is adopt's decision, before the replay hook: a record with
// fingerprint fp takes leader's settled key as a replay, or its key found
// in progress as in progress, a replay classed by from (fromCache or
// fromLeader); a record whose payload differs fails with
// idem.ErrPayloadMismatch. A keyless leader settled no key: it is not
// adopted.
func adoption(fp, leaderFP string, leader fate, from source) (fate, bool) {
	switch {
	case fp != "" && leaderFP != "" && fp != leaderFP:
		return retried(idem.OpClaim, idem.ErrPayloadMismatch), true
	case leader.acked() && leader.work != workKeyless:
		// An omitted result travels as omitted with the value the leader
		// holds: the fresh one when it ran here (still in memory, though
		// not stored), none when it replayed. handOver decides what a copy
		// with nothing to replay becomes.
		return fate{verdict: acknowledge, work: workReplayed, value: leader.value, expiresAt: leader.expiresAt,
			omitted: leader.omitted, from: from}, true
	case leader.work == workInProgress:
		return fate{verdict: retry, op: leader.op, reason: leader.reason, work: workInProgress, leaseUntil: leader.leaseUntil}, true
	}
	return fate{}, false
}

// handOver gives a replayed result to the replay hook: the one place the
// hook is called. A panic is the caller's settleRecovering's to recover.
func (b *batch) handOver(rec *record, f fate) fate {
	hook := b.settings.onReplay
	if f = withNothingToReplay(f, hook != nil); hook == nil || !f.acked() {
		return f
	}
	if err := hook(withKey(b.recordCtx(rec), rec.key), *rec.msg, f.value); err != nil {
		return retried(idem.OpReplay, fmt.Errorf("%w: %w", errReplayHook, err))
	}
	return f
}

// withNothingToReplay is the policy for a replay of a key completed
// without its result (too large to store) when no value is at hand (the
// leader replayed it too, or it came from the store): without a replay
// hook it is acknowledged, since nothing waits for the result; with one it
// fails, wrapping idem.ErrResultTooLarge, and the message goes on to the
// dead-letter queue. The hook must never be passed nil for a result, nor
// the record acknowledged with nothing handed to it: the hook is how the
// result reaches whoever waits for it. An omitted result whose value is at
// hand (its leader ran in this process) is handed over like any other, to
// a copy in the batch and a waiter in another batch alike: the hook gets
// the real result, so acknowledging loses nothing, and failing would send a
// settled message to the dead-letter queue for no reason.
func withNothingToReplay(f fate, hook bool) fate {
	if hook && f.acked() && f.work == workReplayed && f.omitted && len(f.value) == 0 {
		return retried(idem.OpReplay, fmt.Errorf("handler: nothing to replay: the key was completed without its result: %w", idem.ErrResultTooLarge))
	}
	return f
}

// awaitFlight is the fate of rec, whose key another batch of this process
// is settling, adopted from that batch's leader: a completed key is
// replayed, a key found in progress there is in progress here too. It
// returns false when rec must claim the key itself after all: the leader
// ended without settling the key (its work failed, its deadline came),
// which the store then decides. A record whose own deadline comes first
// is not started (ErrDeadline).
func (b *batch) awaitFlight(rec *record, f *flight) (fate, bool) {
	b.settings.logger.DebugContext(b.ctx, "idemq: key in flight in another batch of this process; waiting for its outcome",
		"message_id", rec.msg.MessageId, "key", string(rec.key))
	select {
	case <-f.done:
	case <-b.recCtx.Done():
		return decide(attempt{stage: stageNotStarted, err: ErrDeadline}), true
	}
	return b.adopt(rec, f.fp, f.leaderFate, fromLeader)
}
