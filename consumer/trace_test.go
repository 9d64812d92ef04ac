package consumer_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/handler"
)

// The trace contexts the traced queue's messages carry.
const (
	xrayHeader  = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
)

// tracedSQS is the fake queue with every message sent in a trace: an
// AWSTraceHeader system attribute and a traceparent message attribute.
type tracedSQS struct{ *fakeSQS }

func (q tracedSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := q.fakeSQS.ReceiveMessage(ctx, in, opts...)
	if err == nil {
		for i := range out.Messages {
			out.Messages[i].Attributes["AWSTraceHeader"] = xrayHeader
			out.Messages[i].MessageAttributes = map[string]types.MessageAttributeValue{
				"traceparent": {DataType: aws.String("String"), StringValue: aws.String(traceparent)},
			}
		}
	}
	return out, err
}

// batchTracer records the batches and record outcomes a handler.Tracer is
// told of.
type batchTracer struct {
	mu       sync.Mutex
	batches  []handler.BatchStart
	outcomes map[string]handler.RecordOutcome
}

func (t *batchTracer) StartBatch(ctx context.Context, b handler.BatchStart) (context.Context, func(handler.BatchEnd)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.batches = append(t.batches, b)
	return ctx, func(handler.BatchEnd) {}
}

func (t *batchTracer) StartRecord(ctx context.Context, r handler.RecordStart) (context.Context, func(handler.RecordEnd)) {
	return ctx, func(e handler.RecordEnd) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.outcomes[r.Message.MessageId] = e.Outcome
	}
}

func (t *batchTracer) StartStoreCall(ctx context.Context, _ handler.StoreCallStart) (context.Context, func(handler.StoreCallEnd)) {
	return ctx, func(handler.StoreCallEnd) {}
}

// TestBatchIsTracedAsUnderLambda checks that the batch the consumer hands
// the handler is traced as Lambda's: with the queue's URL, and each
// message's trace context (its AWSTraceHeader system attribute and its
// traceparent message attribute) there for the tracer to carry on.
func TestBatchIsTracedAsUnderLambda(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	id := q.send(body("traced"))
	tracer := &batchTracer{outcomes: map[string]handler.RecordOutcome{}}
	b.start(tracedSQS{q}, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler(handler.WithTracer(tracer)))
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })

	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	if len(tracer.batches) != 1 || len(tracer.batches[0].Records) != 1 {
		t.Fatalf("batches %+v, want one of one record", tracer.batches)
	}
	batch := tracer.batches[0]
	r := batch.Records[0]
	if batch.QueueURL != "https://sqs.eu-west-1.amazonaws.com/123456789012/fake" {
		t.Errorf("queue URL %q, want the queue's", batch.QueueURL)
	}
	if r.Attributes["AWSTraceHeader"] != xrayHeader {
		t.Errorf("record's AWSTraceHeader %q, want %q", r.Attributes["AWSTraceHeader"], xrayHeader)
	}
	if a := r.MessageAttributes["traceparent"]; a.StringValue == nil || *a.StringValue != traceparent || a.DataType != "String" {
		t.Errorf("record's traceparent attribute %+v, want %q", a, traceparent)
	}
	if got := tracer.outcomes[id]; got != "executed" {
		t.Errorf("record outcome %q, want executed", got)
	}
}
