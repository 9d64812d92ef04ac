package pipeline

import (
	"time"

	"github.com/idemq/idemq/idem"
)

// Accepted returns the requests the server accepted.
func (b *BackoffReport) Accepted() int {
	n := b.Requests
	for _, v := range b.Rejected {
		n -= v
	}
	return n
}

// backoffReport compares each visibility change with the receive it
// followed: the change asked for Seconds from when it was answered (or
// earlier); the receive's own timeout ran from when the receive was sent
// (or later). Both bounds lean towards "later".
func (r *runner) backoffReport() *BackoffReport {
	b := &BackoffReport{Rejected: map[string]int{}, Seconds: map[int]int{}}
	for _, c := range r.sqsProxy.Changes() {
		b.Requests++
		if c.Err != "" {
			b.Rejected[c.Err]++
			continue
		}
		b.Seconds[c.Seconds]++
		received, ok := r.queue.ReceivedAt(c.ReceiptHandle)
		switch {
		case !ok:
			b.Unmatched++
		case c.Answered.Add(time.Duration(c.Seconds) * time.Second).Before(received.Add(r.cfg.Visibility)):
			b.Sooner++
		default:
			b.Later++
		}
	}
	return b
}

// checkBackoff asserts what the back-off must have done: every back-off
// the workers counted reached the server and was accepted (the server may
// have seen more: a worker killed during its batch logs no count); each
// asked for at most the lease, plus twice the clock-skew bound (a stored
// lease is padded by it, and a claim may take it over only that much
// after it ends), plus the 1 s the handler adds; none for a message that
// was never received; and in-progress messages came back sooner than the
// queue's visibility timeout would have brought them.
func (r *runner) checkBackoff(rep *Report) {
	b := rep.Backoff
	if b == nil {
		return
	}
	if rep.Worker.BackedOff > b.Accepted() {
		rep.violate("back-off: the workers counted %d visibility changes, the SQS server accepted %d", rep.Worker.BackedOff, b.Accepted())
	}
	if b.Unmatched > 0 {
		rep.violate("back-off: %d visibility changes for receipt handles never received", b.Unmatched)
	}
	lease := r.cfg.lease()
	limit := int((lease+2*idem.DefaultClockSkew+time.Second-1)/time.Second) + 1
	for s, n := range b.Seconds {
		if s > limit {
			rep.violate("back-off: %d visibility changes to %d s, longer than the %s lease (+%s, +1 s)", n, s, lease, 2*idem.DefaultClockSkew)
		}
	}
	// A lease longer than the visibility timeout is held back longer than
	// the queue would; a shorter one comes back sooner.
	if lease > r.cfg.Visibility && b.Accepted() == 0 && rep.Worker.InProgress > 0 {
		rep.violate("back-off: %d in-progress retries and no visibility change", rep.Worker.InProgress)
	}
	if lease <= r.cfg.Visibility && b.Sooner == 0 {
		rep.violate("back-off: no in-progress message came back sooner than the %s visibility timeout (%d changes accepted, %d in-progress retries)",
			r.cfg.Visibility, b.Accepted(), rep.Worker.InProgress)
	}
}
