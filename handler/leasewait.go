package handler

import "time"

// Steps of the wait for a key in progress in a stream's batch: the first
// look again after firstLeaseLook, each next one after twice as long, at
// most maxLeaseLook apart, so that a live holder's result is replayed
// soon after it completes, and a long wait costs a claim every few
// seconds.
const (
	firstLeaseLook = 250 * time.Millisecond
	maxLeaseLook   = 8 * time.Second
)

// claimAwaitingLease is claimOrAdopt for a stream's record, which has no
// visibility to back off with: Lambda sends a stream's batch again at
// once, so each retry that found the key still held would spend one of
// the mapping's MaximumRetryAttempts, and a holder that crashed (its lease
// running to its own deadline) could use them all before its lease ends,
// giving the record up unrun. So a key found in progress is waited for in
// this invocation and claimed again, by steps that double (a live holder
// that completes is replayed soon after, a crashed one taken over when its
// lease has passed, judged as a claim judges it, ClockSkew later), until
// the deadline guard comes, when the record is reported in progress as
// before. Outside a stream's batch, or without a deadline, it is
// claimOrAdopt.
func (b *batch) claimAwaitingLease(rec *record) fate {
	f := b.claimOrAdopt(rec)
	for step := firstLeaseLook; b.stream && b.awaitLease(f, step); step = min(2*step, maxLeaseLook) {
		f = b.claimOrAdopt(rec)
	}
	return f
}

// awaitLease waits step, or until the lease of f (a fate found in
// progress) has passed if sooner, and reports whether to claim again. It
// does not wait past the deadline guard (a reserve before the
// invocation's deadline): when that comes first it waits until the guard,
// then reports false, so that each invocation holds the record in
// progress for as long as it may (queue.Stream.CheckLease counts on it).
// Not in progress, or without a deadline, it reports false at once.
func (b *batch) awaitLease(f fate, step time.Duration) bool {
	if f.work != workInProgress || f.leaseUntil.IsZero() || !b.hasDeadline || b.reserve <= 0 {
		return false
	}
	now := b.now()
	until := now.Add(step)
	if passed := f.leaseUntil.Add(b.settings.claims.ClockSkew + time.Millisecond); passed.Before(until) {
		until = passed
	}
	again := true
	if guard := b.deadline.Add(-b.reserve); !until.Before(guard) {
		until, again = guard, false
	}
	if wait := until.Sub(now); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.recCtx.Done():
			return false
		}
	}
	return again
}
