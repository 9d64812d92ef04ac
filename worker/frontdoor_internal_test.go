package worker

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// captureSend records the input of SendMessage.
type captureSend struct{ in *sqs.SendMessageInput }

func (c *captureSend) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("captureSend: no batches")
}

func (c *captureSend) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	c.in = in
	return &sqs.SendMessageOutput{}, nil
}

// The front door sends through the producer: the key in the body where
// the worker reads it, the scope in its attribute; on a FIFO queue the
// hash of the scope and the key is the group and the producer's
// deduplication id of them the deduplication id (a key may be longer than
// their 128 characters); on a standard queue neither is set.
func TestFrontDoorQueueFIFO(t *testing.T) {
	t.Parallel()
	var c captureSend
	key := strings.Repeat("k", 200)
	id := request.Identity{Namespace: "summarise"}
	fifo, err := frontDoorQueue(&c, "https://sqs/1/requests.fifo", id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fifo.Send(context.Background(), producer.Message{Key: key, Body: []byte("{}"), Scope: "acme"}); err != nil {
		t.Fatal(err)
	}
	if c.in.MessageDeduplicationId == nil || len(*c.in.MessageDeduplicationId) > 128 || c.in.MessageGroupId == nil || len(*c.in.MessageGroupId) != 64 {
		t.Errorf("FIFO input %+v", c.in)
	}
	group := *c.in.MessageGroupId
	if _, err := fifo.Send(context.Background(), producer.Message{Key: key, Body: []byte("{}"), Scope: "globex"}); err != nil {
		t.Fatal(err)
	}
	if *c.in.MessageGroupId == group {
		t.Errorf("two scopes' requests share the group %s", group)
	}
	read, err := request.NewReader(id)
	if err != nil {
		t.Fatal(err)
	}
	msg := events.SQSMessage{Body: *c.in.MessageBody, MessageAttributes: map[string]events.SQSMessageAttribute{}}
	for name, a := range c.in.MessageAttributes {
		msg.MessageAttributes[name] = events.SQSMessageAttribute{DataType: *a.DataType, StringValue: a.StringValue}
	}
	if got, err := read.Read(msg); err != nil || got.Value != key || got.Scope != "globex" {
		t.Errorf("the message sent %+v holds %+v (%v), want key %q in scope globex", msg, got, err, key)
	}
	standard, err := frontDoorQueue(&c, "https://sqs/1/requests", id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := standard.Send(context.Background(), producer.Message{Key: key, Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if c.in.MessageDeduplicationId != nil || c.in.MessageGroupId != nil {
		t.Errorf("standard input %+v", c.in)
	}
}
