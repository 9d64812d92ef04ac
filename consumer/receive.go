package consumer

import (
	"context"
	"maps"

	"github.com/aws/aws-lambda-go/events"
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

// event converts received messages to the event Lambda's SQS event source
// mapping would hand the handler for them, in the order SQS gave them.
func (c *Consumer) event(msgs []types.Message) events.SQSEvent {
	records := make([]events.SQSMessage, len(msgs))
	for i, m := range msgs {
		records[i] = events.SQSMessage{
			MessageId:              aws.ToString(m.MessageId),
			ReceiptHandle:          aws.ToString(m.ReceiptHandle),
			Body:                   aws.ToString(m.Body),
			Md5OfBody:              aws.ToString(m.MD5OfBody),
			Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
			Attributes:             maps.Clone(m.Attributes),
			MessageAttributes:      messageAttributes(m.MessageAttributes),
			EventSourceARN:         c.arn,
			EventSource:            "aws:sqs",
			AWSRegion:              c.region,
		}
		if records[i].Attributes == nil {
			records[i].Attributes = map[string]string{}
		}
	}
	return events.SQSEvent{Records: records}
}

func messageAttributes(in map[string]types.MessageAttributeValue) map[string]events.SQSMessageAttribute {
	out := make(map[string]events.SQSMessageAttribute, len(in))
	for name, v := range in {
		out[name] = events.SQSMessageAttribute{
			DataType:         aws.ToString(v.DataType),
			StringValue:      v.StringValue,
			BinaryValue:      v.BinaryValue,
			StringListValues: v.StringListValues,
			BinaryListValues: v.BinaryListValues,
		}
	}
	return out
}
