package queue

import (
	"fmt"
	"time"
)

// InProgressReceives is how many receives of a message find its key held by
// a claim that holds it for held after the message's receive (the batching
// window plus the claim's lease, when the worker that made it crashed):
// the receives at each visibility timeout up to held, each spending one of
// the message's MaxReceives. With the in-progress back-off (handler.WithBackoff)
// the first of them holds the message until the lease ends, up to
// MaxVisibility at a time, so it spends one receive per 12 h held instead.
func (q Settings) InProgressReceives(held time.Duration, backoff bool) int {
	if q.VisibilityTimeout <= 0 || held < q.VisibilityTimeout {
		return 0
	}
	n := int(held / q.VisibilityTimeout)
	if backoff {
		n = min(n, 1+int((held-q.VisibilityTimeout)/MaxVisibility))
	}
	return n
}

// CheckLease reports an error when a message whose worker crashed (or lost
// the answer) while holding a claim with this lease could not be retried:
// the claim holds the key for up to batching window + lease after the
// receive; every receive in that time finds it in progress
// (InProgressReceives), and after the first receive and those one must be
// left for the retry, one visibility timeout after the lease ends at the
// latest, while the queue still keeps the message. Otherwise the message
// reaches the dead-letter queue, or is dropped, with its work undone. The
// lease is the claim's (idem.Config.Lease; by default the invocation's
// time left plus idem.DefaultLeaseMargin, so at most the function's
// timeout plus that margin).
func CheckLease(q Settings, lease time.Duration, backoff bool) error {
	if err := q.Validate(); err != nil {
		return err
	}
	held := q.BatchingWindow + lease
	how := "one every visibility timeout while the lease runs"
	if backoff {
		how = "one per 12 h with back-off on"
	}
	if n := q.InProgressReceives(held, backoff); q.MaxReceives < n+2 {
		return fmt.Errorf("%w: lease %s: a message whose worker crashed holding the key reaches the dead-letter queue with its work undone: "+
			"the key is held up to batching window %s + lease = %s after the receive, %d receives find it in progress (%s), and a retry needs %d receives in all, more than max receives %d; "+
			"shorten the lease or raise max receives or the visibility timeout %s",
			ErrInvalidSettings, lease, q.BatchingWindow, held, n, how, n+2, q.MaxReceives, q.VisibilityTimeout)
	}
	if retry := held + q.VisibilityTimeout; q.Retention < retry {
		return fmt.Errorf("%w: lease %s: a message whose worker crashed holding the key is retried up to %s after its receive "+
			"(batching window %s + lease + visibility timeout %s), after the retention %s: the queue would drop it with its work undone; shorten the lease or raise the retention",
			ErrInvalidSettings, lease, retry, q.BatchingWindow, q.VisibilityTimeout, q.Retention)
	}
	return nil
}
