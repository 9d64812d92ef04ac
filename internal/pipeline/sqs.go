package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/handler/handlertest"
)

// Queue is a standard SQS queue with a redrive policy to its dead-letter
// queue, on the local SQS server; a handlertest.Source for the event
// source mapping.
type Queue struct {
	client *sqs.Client
	URL    string
	ARN    string
	DLQURL string
}

// NewSQSClient returns a client for the local SQS server.
func NewSQSClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
}

// CreateQueue creates name and name-dlq: visibility timeout and max
// receives as given, the longest retention.
func CreateQueue(ctx context.Context, client *sqs.Client, name string, visibility time.Duration, maxReceives int) (*Queue, error) {
	dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")})
	if err != nil {
		return nil, fmt.Errorf("pipeline: create the dead-letter queue: %w", err)
	}
	dlqARN, err := queueARN(ctx, client, *dlq.QueueUrl)
	if err != nil {
		return nil, err
	}
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: map[string]string{
		"VisibilityTimeout":      strconv.Itoa(int(visibility / time.Second)),
		"MessageRetentionPeriod": "1209600",
		"RedrivePolicy":          fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlqARN, maxReceives),
	}})
	if err != nil {
		return nil, fmt.Errorf("pipeline: create the queue: %w", err)
	}
	arn, err := queueARN(ctx, client, *q.QueueUrl)
	if err != nil {
		return nil, err
	}
	return &Queue{client: client, URL: *q.QueueUrl, ARN: arn, DLQURL: *dlq.QueueUrl}, nil
}

func queueARN(ctx context.Context, client *sqs.Client, url string) (string, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return "", fmt.Errorf("pipeline: queue ARN: %w", err)
	}
	return out.Attributes["QueueArn"], nil
}

// Send sends one message.
func (q *Queue) Send(ctx context.Context, body string) error {
	_, err := q.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body)})
	return err
}

// Receive implements handlertest.Source: a long poll of whole seconds
// (SQS's unit), at least one when wait is positive.
func (q *Queue) Receive(ctx context.Context, max int, wait time.Duration) ([]events.SQSMessage, error) {
	secs := int32((wait + time.Second - 1) / time.Second)
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(q.URL),
		MaxNumberOfMessages:         int32(min(max, 10)),
		WaitTimeSeconds:             secs,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	if err != nil {
		return nil, err
	}
	msgs := make([]events.SQSMessage, len(out.Messages))
	for i, m := range out.Messages {
		msgs[i] = q.event(m)
	}
	return msgs, nil
}

// event converts a received message to the record Lambda would deliver.
func (q *Queue) event(m types.Message) events.SQSMessage {
	return events.SQSMessage{
		MessageId:      aws.ToString(m.MessageId),
		ReceiptHandle:  aws.ToString(m.ReceiptHandle),
		Body:           aws.ToString(m.Body),
		Md5OfBody:      aws.ToString(m.MD5OfBody),
		Attributes:     m.Attributes,
		EventSource:    "aws:sqs",
		EventSourceARN: q.ARN,
		AWSRegion:      "us-east-1",
	}
}

// Delete implements handlertest.Source.
func (q *Queue) Delete(ctx context.Context, msgs []events.SQSMessage) error {
	for len(msgs) > 0 {
		n := min(len(msgs), 10)
		entries := make([]types.DeleteMessageBatchRequestEntry, n)
		for i, m := range msgs[:n] {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.ReceiptHandle)}
		}
		out, err := q.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
		if err != nil {
			return err
		}
		if len(out.Failed) > 0 {
			f := out.Failed[0]
			return fmt.Errorf("delete %s: %s %s", msgs[0].MessageId, aws.ToString(f.Code), aws.ToString(f.Message))
		}
		msgs = msgs[n:]
	}
	return nil
}

// Pending implements handlertest.Source: visible, in flight and delayed
// messages.
func (q *Queue) Pending(ctx context.Context) (int, error) {
	out, err := q.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(q.URL),
		AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
			types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
		},
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range out.Attributes {
		x, _ := strconv.Atoi(v)
		n += x
	}
	return n, nil
}

// DeadLetters receives every message of the dead-letter queue (without
// deleting them).
func (q *Queue) DeadLetters(ctx context.Context) ([]events.SQSMessage, error) {
	var all []events.SQSMessage
	for {
		out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(q.DLQURL), MaxNumberOfMessages: 10, VisibilityTimeout: 600,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if err != nil {
			return nil, err
		}
		if len(out.Messages) == 0 {
			return all, nil
		}
		for _, m := range out.Messages {
			all = append(all, q.event(m))
		}
	}
}

var _ handlertest.Source = (*Queue)(nil)
