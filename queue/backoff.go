package queue

import (
	"context"
	"math/rand/v2"
	"time"
)

// The back-off of a failed SQS call when not told otherwise
// (producer.Config and consumer.Config RetryMin and RetryMax): 100 ms doubling up to 5 s,
// each wait with up to half of it added at random.
const (
	DefaultRetryMin = 100 * time.Millisecond
	DefaultRetryMax = 5 * time.Second
)

// Backoff is the one retry layer of the SQS calls the producer and the
// consumer make: each call goes out once through the SDK, and its
// caller's loop sends it again after this wait. It is a capped
// exponential back-off: Min doubling up to Max, each wait with up to half
// of it added at random, so that callers that failed together do not
// retry together. The zero value waits 0 every time.
type Backoff struct {
	Min, Max time.Duration
	next     time.Duration
}

// Wait returns how long to wait before the next attempt.
func (b *Backoff) Wait() time.Duration {
	if b.next == 0 {
		b.next = b.Min
	}
	d := b.next
	b.next = min(b.next*2, b.Max)
	if d > 0 {
		d += rand.N(d/2 + 1)
	}
	return d
}

// Reset starts the back-off over, after a success.
func (b *Backoff) Reset() { b.next = 0 }

// Sleep waits d, or until ctx ends; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
