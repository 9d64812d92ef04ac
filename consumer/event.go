package consumer

import (
	"maps"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

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
