package producer

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is the capped exponential back-off between attempts: RetryMin
// doubling up to RetryMax, each with up to half of it added at random.
type backoff struct {
	min, max time.Duration
	next     time.Duration
}

func (p *Producer) newBackoff() *backoff {
	return &backoff{min: p.cfg.RetryMin, max: p.cfg.RetryMax}
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

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
