package handler

import "time"

// claimAwaitingLease is claimOrAdopt for a stream's record, which has no
// visibility to back off with: Lambda sends a stream's batch again at
// once, so each retry that found the key still held would spend one of
// the mapping's MaximumRetryAttempts, and a holder that crashed (its lease
// running to its own deadline) could use them all before its lease ends,
// giving the record up unrun. So a key found in progress is waited for in
// this invocation, until its lease has passed (judged as a claim judges
// it, ClockSkew later) and then claimed again, or until the deadline guard
// comes first, when the record is reported in progress as before. Outside
// a stream's batch, or without a deadline, it is claimOrAdopt.
func (b *batch) claimAwaitingLease(rec *record) fate {
	f := b.claimOrAdopt(rec)
	for b.stream && b.awaitLease(f) {
		f = b.claimOrAdopt(rec)
	}
	return f
}

// awaitLease waits for the lease of f, a fate found in progress, to pass,
// or for the deadline guard (a reserve before the invocation's deadline),
// whichever comes first, and reports whether the lease passed.
func (b *batch) awaitLease(f fate) bool {
	if f.work != workInProgress || f.leaseUntil.IsZero() || !b.hasDeadline || b.reserve <= 0 {
		return false
	}
	passed := f.leaseUntil.Add(b.settings.claims.ClockSkew + time.Millisecond)
	until := b.deadline.Add(-b.reserve)
	if passed.Before(until) {
		until = passed
	}
	if wait := until.Sub(b.now()); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.recCtx.Done():
			return false
		}
	}
	return !b.now().Before(passed)
}
