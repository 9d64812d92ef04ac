package contract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// discard is a logger that writes nowhere.
var discard = slog.New(slog.DiscardHandler)

// queueURL is the fake queue's URL.
const queueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/requests"

// newFrontDoor is the front door a user wires for the worker of id: over
// the worker's store, sending through a producer over q by the same
// Identity, every caller in scope ("" for none). It is the one place the
// test wires the front door.
func newFrontDoor(st frontdoor.Store, q producer.SQSAPI, id request.Identity, scope string) (http.Handler, error) {
	p, err := producer.New(q, queueURL, producer.WithRequest(id))
	if err != nil {
		return nil, err
	}
	opts := []frontdoor.Option{frontdoor.WithRequest(id), frontdoor.WithLogger(discard)}
	if scope != "" {
		opts = append(opts, frontdoor.WithScope(func(*http.Request) (string, error) { return scope, nil }))
	}
	return frontdoor.New(st, p, opts...)
}

// queue is a fake SQS queue for the producer (producer.SQSAPI): it keeps
// each message sent, as the event source would deliver it.
type queue struct {
	mu   sync.Mutex
	msgs []events.SQSMessage
}

// SendMessage keeps the message and answers with its id.
func (q *queue) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := events.SQSMessage{
		MessageId:      fmt.Sprintf("m-%d", len(q.msgs)+1),
		Body:           aws.ToString(in.MessageBody),
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:requests",
	}
	for name, a := range in.MessageAttributes {
		if m.MessageAttributes == nil {
			m.MessageAttributes = map[string]events.SQSMessageAttribute{}
		}
		m.MessageAttributes[name] = events.SQSMessageAttribute{DataType: aws.ToString(a.DataType), StringValue: a.StringValue}
	}
	q.msgs = append(q.msgs, m)
	return &sqs.SendMessageOutput{MessageId: aws.String(m.MessageId)}, nil
}

// SendMessageBatch is not used by these tests.
func (q *queue) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("contract: SendMessageBatch is not faked")
}

// take removes and returns the messages sent so far.
func (q *queue) take() []events.SQSMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.msgs
	q.msgs = nil
	return msgs
}

// store is a memstore that keeps the key of every claim made on it: the
// key a handler claims, observed at the store.
type store struct {
	*memstore.Store
	mu      sync.Mutex
	claimed []idem.Key
}

func newStore() *store {
	s, err := memstore.New()
	if err != nil {
		panic(err)
	}
	return &store{Store: s}
}

// Claim records the key and claims it.
func (s *store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	s.mu.Lock()
	s.claimed = append(s.claimed, req.Key)
	s.mu.Unlock()
	return s.Store.Claim(ctx, req)
}

// claims returns the keys claimed so far.
func (s *store) claims() []idem.Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]idem.Key(nil), s.claimed...)
}

// invoker is a fake Lambda for the dispatcher (durable.Invoker): it keeps
// the execution name of every invoke and starts it.
type invoker struct {
	mu    sync.Mutex
	names []string
}

// Invoke keeps the name and answers as Lambda does a durable start.
func (f *invoker) Invoke(_ context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := aws.ToString(in.DurableExecutionName)
	f.names = append(f.names, name)
	return &lambda.InvokeOutput{StatusCode: 202,
		DurableExecutionArn: aws.String("arn:aws:lambda:us-east-1:123456789012:function:work:prod/durable-execution/" + name)}, nil
}
