package stream_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/request"
)

type order struct {
	Request string `json:"request"`
	PK      string `json:"pk"`
}

// A typed handler reads the DynamoDB image as its request, keyed by an
// attribute the writer set, and keeps the item's order.
func TestTypedHandlerOnDynamoDB(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	fn := func(_ context.Context, o order) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, o.Request)
		if o.Request == "r2" {
			return "", errors.New("no")
		}
		return "ok " + o.Request, nil
	}
	h, err := handler.NewTyped(storeFor(t), fn, handler.WithRequest(requestOf("request")), quiet())
	if err != nil {
		t.Fatal(err)
	}
	item := func(seq, id, req string) events.DynamoDBEventRecord {
		img := map[string]events.DynamoDBAttributeValue{"pk": s(id), "sk": n("1"), "request": s(req)}
		return ddbRecord(seq, "MODIFY", keyOf(id), img, nil)
	}
	resp, err := stream.New(h).DynamoDB(t.Context(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		item("1", "o1", "r1"), item("2", "o1", "r2"), item("3", "o1", "r3"), item("4", "o2", "r4"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "2" {
		t.Fatalf("batch item failures %v; want [2]", resp.BatchItemFailures)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"r1", "r2", "r4"}) {
		t.Errorf("ran %v; want r1, r2 and r4 (r3 waits behind r2, the same item)", ran)
	}
}

// A step handler's records keep their partition key's order too.
func TestStepHandlerOnKinesis(t *testing.T) {
	t.Parallel()
	reader, err := request.NewReader(request.Identity{Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ran []string
	step := func(_ context.Context, msg events.SQSMessage, _ request.ID) error {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, msg.MessageId)
		if msg.MessageId == "102" {
			return errors.New("no")
		}
		return nil
	}
	h, err := handler.NewStepHandler(reader, step, quiet())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := stream.New(h).Kinesis(t.Context(), kinesisEvent(shard...))
	if err != nil {
		t.Fatal(err)
	}
	if got := failures(resp); !slices.Equal(got, []string{"102"}) {
		t.Fatalf("batch item failures %v; want [102]", got)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"101", "102", "104", "105"}) {
		t.Errorf("ran %v; want every record but 103 (after 102 of its partition key)", ran)
	}
}

// batchSeen is a Tracer that keeps each batch's start.
type batchSeen struct {
	mu      sync.Mutex
	batches []handler.BatchStart
	records []string // RecordStart.QueueURL
}

func (b *batchSeen) StartBatch(ctx context.Context, s handler.BatchStart) (context.Context, func(handler.BatchEnd)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, s)
	return ctx, func(handler.BatchEnd) {}
}

func (b *batchSeen) StartRecord(ctx context.Context, r handler.RecordStart) (context.Context, func(handler.RecordEnd)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.records = append(b.records, r.QueueURL)
	return ctx, func(handler.RecordEnd) {}
}

func (b *batchSeen) StartStoreCall(ctx context.Context, _ handler.StoreCallStart) (context.Context, func(handler.StoreCallEnd)) {
	return ctx, func(handler.StoreCallEnd) {}
}

// A stream's batch is traced as a FIFO batch of no queue, even with a
// queue URL set for the SQS back-off.
func TestTracedStreamBatchHasNoQueue(t *testing.T) {
	t.Parallel()
	tr := &batchSeen{}
	w := newWork()
	s, _ := newHandlers(t, w, handler.WithTracer(tr), func(c *handler.Config) { c.QueueURL = "https://sqs.us-east-1.amazonaws.com/000000000000/q" })
	if _, err := s.Kinesis(t.Context(), kinesisEvent(shard...)); err != nil {
		t.Fatal(err)
	}
	if len(tr.batches) != 1 {
		t.Fatalf("%d batch starts; want 1", len(tr.batches))
	}
	if b := tr.batches[0]; !b.FIFO || b.QueueURL != "" {
		t.Fatalf("batch traced with FIFO %v, queue URL %q; want FIFO, no queue URL", b.FIFO, b.QueueURL)
	}
	for _, u := range tr.records {
		if u != "" {
			t.Errorf("a record traced with queue URL %q; want none", u)
		}
	}
}
