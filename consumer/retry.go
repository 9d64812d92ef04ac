package consumer

import (
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/queue"
)

// newBackoff is the back-off after a failed SQS call, before the loop
// that made it sends it again (each call is one request: once):
// RetryMin doubling up to RetryMax, each with up to half of it added at
// random so that consumers that failed together do not retry together.
func (c *Consumer) newBackoff() *queue.Backoff {
	return &queue.Backoff{Min: c.cfg.RetryMin, Max: c.cfg.RetryMax}
}

// once is the per-call option of every SQS call the consumer sends again
// itself (queue.Backoff): the SDK makes one attempt, whatever the client's
// retryer, so the consumer's attempts are the only ones (not each of them
// times the SDK's). An error the SDK would have retried comes back
// wrapping *retry.MaxAttemptsError of the SDK.
func once(o *sqs.Options) { o.RetryMaxAttempts = 1 }
