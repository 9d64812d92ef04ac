package producer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// must returns v, and panics if err is not nil: for a constructor whose
// settings a test knows are good.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// errLost stands for a lost answer: the connection cut after SQS took the
// request.
var errLost = errors.New("read: connection reset by peer")

// fakeSQS is an in-memory queue behind producer.SQSAPI that can lose
// answers and fail batch entries.
type fakeSQS struct {
	mu       sync.Mutex
	bodies   []string // every message taken, in order
	inputs   []*sqs.SendMessageInput
	batches  []*sqs.SendMessageBatchInput
	loseNext int // answers to lose (after taking the request)
	hangNext int // answers to hold until the attempt's context ends (after taking the request)
	// failEntry fails a batch entry (not taking it): sender says whose
	// fault. It sees each entry of each call.
	failEntry func(call int, body string) (fail, sender bool)
}

var _ producer.SQSAPI = (*fakeSQS)(nil)

func (f *fakeSQS) SendMessage(ctx context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.inputs = append(f.inputs, in)
	f.bodies = append(f.bodies, aws.ToString(in.MessageBody))
	if f.hangNext > 0 {
		f.hangNext--
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		return nil, ctx.Err()
	}
	if f.loseNext > 0 {
		f.loseNext--
		return nil, errLost
	}
	return &sqs.SendMessageOutput{MessageId: aws.String(fmt.Sprintf("m%d", len(f.bodies)))}, nil
}

func (f *fakeSQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	call := len(f.batches)
	f.batches = append(f.batches, in)
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		body := aws.ToString(e.MessageBody)
		if f.failEntry != nil {
			if fail, sender := f.failEntry(call, body); fail {
				out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"), Message: aws.String("injected"), SenderFault: sender})
				continue
			}
		}
		f.bodies = append(f.bodies, body)
		out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id, MessageId: aws.String(fmt.Sprintf("m%d", len(f.bodies)))})
	}
	if f.loseNext > 0 {
		f.loseNext--
		return nil, errLost
	}
	return out, nil
}

func (f *fakeSQS) taken() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// run delivers bodies to a handler made with opts over a fresh memstore,
// one batch, and returns the keys its function saw and how many times it
// ran; every record must be acknowledged.
func run(t *testing.T, bodies []string, opts ...handler.Option) (keys []idem.Key, executions int) {
	t.Helper()
	store := must(memstore.New())
	var mu sync.Mutex
	var n atomic.Int32
	opts = append([]handler.Option{handler.WithRequest(request.Identity{Namespace: "ns"}), handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	h := must(handler.New(store, func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
		n.Add(1)
		k, _ := handler.KeyFromContext(ctx)
		mu.Lock()
		keys = append(keys, k)
		mu.Unlock()
		return []byte("done"), nil
	}, opts...))
	ev := events.SQSEvent{}
	for i, b := range bodies {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprintf("msg-%d", i), Body: b,
			EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:jobs"})
	}
	resp, err := h(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the handler failed %v", resp.BatchItemFailures)
	}
	return keys, int(n.Load())
}

type (
	sqsSendMessageInput  = sqs.SendMessageInput
	sqsSendMessageOutput = sqs.SendMessageOutput
	sqsOption            = func(*sqs.Options)
)
