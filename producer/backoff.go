package producer

import (
	"context"
	"time"

	"github.com/idemq/idemq/internal/retry"
)

// newBackoff is the back-off between attempts: RetryMin doubling up to
// RetryMax, each with up to half of it added at random.
func (p *Producer) newBackoff() *retry.Backoff {
	return &retry.Backoff{Min: p.cfg.RetryMin, Max: p.cfg.RetryMax}
}

// sleep waits d, or until ctx ends, returning ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	if retry.Sleep(ctx, d) {
		return nil
	}
	return ctx.Err()
}
