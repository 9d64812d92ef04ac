package consumer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/idemq/idemq/queue"
)

// queueAttempts is how many times Start asks for the queue's attributes.
const queueAttempts = 5

// readQueue fills in the queue's ARN and visibility timeout where the
// configuration leaves them to the queue, and checks them.
func (c *Consumer) readQueue(ctx context.Context) error {
	if c.cfg.QueueARN == "" || c.cfg.VisibilityTimeout == 0 {
		attrs, err := c.queueAttributes(ctx)
		if err != nil {
			return err
		}
		if c.cfg.QueueARN == "" {
			c.cfg.QueueARN = attrs[string(types.QueueAttributeNameQueueArn)]
		}
		if c.cfg.VisibilityTimeout == 0 {
			v := attrs[string(types.QueueAttributeNameVisibilityTimeout)]
			secs, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%w: %s: VisibilityTimeout %q is not a number of seconds", ErrQueue, c.queueURL, v)
			}
			c.cfg.VisibilityTimeout = time.Duration(secs) * time.Second
		}
	}
	if err := checkVisibility(c.cfg.VisibilityTimeout, c.cfg.MaxRunTime); err != nil {
		return fmt.Errorf("%w: %s: %w (set the queue's, or Config.VisibilityTimeout)", ErrQueue, c.queueURL, err)
	}
	parts := strings.Split(c.cfg.QueueARN, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sqs" || parts[5] == "" {
		return fmt.Errorf("%w: %s: ARN %q is not an SQS queue's", ErrQueue, c.queueURL, c.cfg.QueueARN)
	}
	c.arn, c.region = c.cfg.QueueARN, parts[3]
	return nil
}

func (c *Consumer) queueAttributes(ctx context.Context) (map[string]string, error) {
	bo := c.newBackoff()
	var err error
	for attempt := 1; ; attempt++ {
		var out *sqs.GetQueueAttributesOutput
		out, err = c.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(c.queueURL),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn, types.QueueAttributeNameVisibilityTimeout},
		}, once)
		if err == nil {
			return out.Attributes, nil
		}
		if attempt == queueAttempts {
			break
		}
		c.cfg.Logger.WarnContext(ctx, "idemq consumer: reading the queue's attributes failed; retrying", "queue_url", c.queueURL, "attempt", attempt, "err", err.Error())
		if !queue.Sleep(ctx, bo.Wait()) {
			err = ctx.Err()
			break
		}
	}
	return nil, fmt.Errorf("%w: %s: reading its attributes: %w", ErrQueue, c.queueURL, err)
}
