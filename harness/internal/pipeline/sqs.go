package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// Queue is an SQS queue, standard or FIFO, with a redrive policy to its
// dead-letter queue, on the local SQS server; a loadtest.Source for the
// event source mapping.
type Queue struct {
	client *sqs.Client
	URL    string
	ARN    string
	DLQURL string
	FIFO   bool

	mu       sync.Mutex
	received map[string]time.Time // receipt handle → when its receive was sent
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
// receives as given, the longest retention. With fifo both are FIFO
// queues (name.fifo and name-dlq.fifo: SQS wants a FIFO queue's
// dead-letter queue to be FIFO too) without content-based deduplication:
// every send names its deduplication id.
func CreateQueue(ctx context.Context, client *sqs.Client, name string, visibility time.Duration, maxReceives int, fifo bool) (*Queue, error) {
	suffix := ""
	fifoAttrs := map[string]string{}
	if fifo {
		suffix = ".fifo"
		fifoAttrs = map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false"}
	}
	dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq" + suffix), Attributes: fifoAttrs})
	if err != nil {
		return nil, fmt.Errorf("pipeline: create the dead-letter queue: %w", err)
	}
	dlqARN, err := queueARN(ctx, client, *dlq.QueueUrl)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{
		"VisibilityTimeout":      strconv.Itoa(int(visibility / time.Second)),
		"MessageRetentionPeriod": "1209600",
		"RedrivePolicy":          fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlqARN, maxReceives),
	}
	for k, v := range fifoAttrs {
		attrs[k] = v
	}
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + suffix), Attributes: attrs})
	if err != nil {
		return nil, fmt.Errorf("pipeline: create the queue: %w", err)
	}
	arn, err := queueARN(ctx, client, *q.QueueUrl)
	if err != nil {
		return nil, err
	}
	return &Queue{client: client, URL: *q.QueueUrl, ARN: arn, DLQURL: *dlq.QueueUrl, FIFO: fifo, received: map[string]time.Time{}}, nil
}

func queueARN(ctx context.Context, client *sqs.Client, url string) (string, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return "", fmt.Errorf("pipeline: queue ARN: %w", err)
	}
	return out.Attributes["QueueArn"], nil
}

// Send sends one message to a standard queue.
func (q *Queue) Send(ctx context.Context, body string) error {
	_, err := q.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body)})
	return err
}

// SendFIFO sends one message to a FIFO queue in message group group, and
// returns the message id the queue answered. A deduplication id already
// sent in the last five minutes is dropped by the queue, which answers
// with the first message's id.
func (q *Queue) SendFIFO(ctx context.Context, body, group, dedupID string) (string, error) {
	out, err := q.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(q.URL), MessageBody: aws.String(body),
		MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String(dedupID),
	})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.MessageId), nil
}

// Receive implements loadtest.Source: a long poll of whole seconds
// (SQS's unit), at least one when wait is positive.
func (q *Queue) Receive(ctx context.Context, max int, wait time.Duration) ([]events.SQSMessage, error) {
	secs := int32((wait + time.Second - 1) / time.Second)
	sent := time.Now()
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
	q.mu.Lock()
	for i, m := range out.Messages {
		msgs[i] = q.event(m)
		q.received[msgs[i].ReceiptHandle] = sent
	}
	q.mu.Unlock()
	return msgs, nil
}

// ReceivedAt returns when the receive that returned receipt handle h was
// sent: the message's visibility timeout started no earlier.
func (q *Queue) ReceivedAt(h string) (time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.received[h]
	return t, ok
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

// Delete implements loadtest.Source.
func (q *Queue) Delete(ctx context.Context, msgs []events.SQSMessage) error {
	return q.delete(ctx, q.URL, msgs)
}

func (q *Queue) delete(ctx context.Context, url string, msgs []events.SQSMessage) error {
	for len(msgs) > 0 {
		n := min(len(msgs), 10)
		entries := make([]types.DeleteMessageBatchRequestEntry, n)
		for i, m := range msgs[:n] {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.ReceiptHandle)}
		}
		out, err := q.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
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

// Pending implements loadtest.Source: visible, in flight and delayed
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

// DeadLetters receives every message of the dead-letter queue: without
// deleting them from a standard queue; a FIFO queue hands out a group's
// next message only once the one before is deleted, so from a FIFO queue
// it deletes each one it has read.
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
		var read []events.SQSMessage
		for _, m := range out.Messages {
			read = append(read, q.event(m))
		}
		all = append(all, read...)
		if q.FIFO {
			if err := q.delete(ctx, q.DLQURL, read); err != nil {
				return nil, err
			}
		}
	}
}

var _ loadtest.Source = (*Queue)(nil)
