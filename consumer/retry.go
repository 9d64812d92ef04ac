package consumer

import (
	"math/rand/v2"
	"time"
)

// backoff is the capped exponential back-off between attempts of a failed
// SQS call: RetryMin doubling up to RetryMax, each with up to half of it
// added at random so that consumers that failed together do not retry
// together.
type backoff struct {
	min, max time.Duration
	next     time.Duration
}

func (c *Consumer) newBackoff() *backoff {
	return &backoff{min: c.cfg.RetryMin, max: c.cfg.RetryMax}
}

// wait returns how long to wait before the next attempt.
func (b *backoff) wait() time.Duration {
	if b.next == 0 {
		b.next = b.min
	}
	d := b.next
	b.next = min(b.next*2, b.max)
	if d > 0 {
		d += rand.N(d/2 + 1)
	}
	return d
}

// reset starts the back-off over after a success.
func (b *backoff) reset() { b.next = 0 }
