package consumer

import "github.com/idemq/idemq/internal/retry"

// newBackoff is the back-off after a failed SQS call, before the loop
// that made it sends it again (each call is one request: retry.Once):
// RetryMin doubling up to RetryMax, each with up to half of it added at
// random so that consumers that failed together do not retry together.
func (c *Consumer) newBackoff() *retry.Backoff {
	return &retry.Backoff{Min: c.cfg.RetryMin, Max: c.cfg.RetryMax}
}
