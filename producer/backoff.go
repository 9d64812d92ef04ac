package producer

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/queue"
)

// newBackoff is the back-off between attempts: RetryMin doubling up to
// RetryMax, each with up to half of it added at random.
func (p *Producer) newBackoff() *queue.Backoff {
	return &queue.Backoff{Min: p.cfg.RetryMin, Max: p.cfg.RetryMax}
}

// sleep waits d, or until ctx ends, returning ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	if queue.Sleep(ctx, d) {
		return nil
	}
	return ctx.Err()
}

// once is the per-call option of every SQS call the producer sends again
// itself (queue.Backoff): the SDK makes one attempt, whatever the client's
// retryer, so the producer's attempts are the only ones (not each of them
// times the SDK's). An error the SDK would have retried comes back
// wrapping *retry.MaxAttemptsError of the SDK.
func once(o *sqs.Options) { o.RetryMaxAttempts = 1 }
