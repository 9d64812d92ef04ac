package consumer

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/idemq/idemq/queue"
)

// receiveLoop receives batches until ctx ends, each only when one of
// Config.MaxBatches slots is free, and starts a goroutine for each. A
// batch received after the consumer began stopping is given back, never
// started.
func (c *Consumer) receiveLoop(ctx context.Context) {
	slots := make(chan struct{}, c.cfg.MaxBatches)
	bo := c.newBackoff()
	in := &sqs.ReceiveMessageInput{
		QueueUrl:            aws.String(c.queueURL),
		MaxNumberOfMessages: int32(c.cfg.BatchSize),
		WaitTimeSeconds:     int32(c.cfg.WaitTime.Seconds()),
		VisibilityTimeout:   int32(c.cfg.VisibilityTimeout.Seconds()),
		// Every system attribute Lambda's event carries: the FIFO
		// group id, ApproximateReceiveCount, SentTimestamp, ...
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	}
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil { // both were ready
			return
		}
		out, err := c.client.ReceiveMessage(ctx, in, once)
		if ctx.Err() != nil {
			<-slots
			if err == nil && len(out.Messages) > 0 {
				c.giveBack(out.Messages)
			}
			return
		}
		if err != nil {
			<-slots
			n := c.stats.receiveFailed()
			c.cfg.Logger.WarnContext(ctx, "idemq consumer: receive failed; retrying", "queue_url", c.queueURL, "failures_in_a_row", n, "err", err.Error())
			if !queue.Sleep(ctx, bo.Wait()) {
				return
			}
			continue
		}
		bo.Reset()
		c.stats.receivedBatch(len(out.Messages))
		if len(out.Messages) == 0 {
			<-slots
			continue
		}
		c.batches.Add(1)
		go func(msgs []types.Message) {
			defer c.batches.Done()
			defer func() { <-slots }()
			c.process(msgs)
		}(out.Messages)
	}
}
