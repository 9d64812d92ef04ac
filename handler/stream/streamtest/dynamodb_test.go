package streamtest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/handler/stream/streamtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// tableStream is a DynamoDB table stream's shard in memory: the Reader a
// real DynamoDB Streams reader is, over a slice.
type tableStream []events.DynamoDBEventRecord

func (s tableStream) Read(_ context.Context, after string, max int) ([]events.DynamoDBEventRecord, error) {
	start := 0
	if after != "" {
		start = 1 + slices.IndexFunc(s, func(r events.DynamoDBEventRecord) bool { return r.Change.SequenceNumber == after })
		if start == 0 {
			return nil, fmt.Errorf("no record %s", after)
		}
	}
	return slices.Clone(s[start:min(len(s), start+max)]), nil
}

func change(seq int, item, key string) events.DynamoDBEventRecord {
	image := map[string]events.DynamoDBAttributeValue{
		"pk":              events.NewStringAttribute(item),
		"idempotency_key": events.NewStringAttribute(key),
	}
	return events.DynamoDBEventRecord{
		EventName:   "MODIFY",
		EventSource: "aws:dynamodb",
		Change: events.DynamoDBStreamRecord{
			Keys:           map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute(item)},
			NewImage:       image,
			SequenceNumber: fmt.Sprintf("%021d", seq),
			StreamViewType: "NEW_AND_OLD_IMAGES",
		},
	}
}

// A reader that reads at the checkpoint rather than after it would send
// the checkpointed record forever: Drain refuses it.
func TestReaderMustReadAfterTheCheckpoint(t *testing.T) {
	t.Parallel()
	shard := tableStream{change(1, "A", "c1"), change(2, "A", "c2")}
	at := readAt{shard}
	ok := func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, nil
	}
	if _, err := streamtest.Drain(t.Context(), at, ok, streamtest.Mapping{BatchSize: 1}); err == nil {
		t.Error("a reader that reads at the checkpoint: no error")
	}
}

// readAt reads from the record at the sequence number, not after it.
type readAt struct{ s tableStream }

func (r readAt) Read(_ context.Context, at string, n int) ([]events.DynamoDBEventRecord, error) {
	start := max(0, slices.IndexFunc(r.s, func(x events.DynamoDBEventRecord) bool { return x.Change.SequenceNumber == at }))
	return slices.Clone(r.s[start:min(len(r.s), start+n)]), nil
}

// The same driver runs a table's stream through stream.New(h).DynamoDB:
// a failed change holds its item's later changes, the shard resumes from
// it, and every change's work succeeds once.
func TestDrainDynamoDBStream(t *testing.T) {
	t.Parallel()
	var calls handlertest.Calls
	key := handlertest.BodyField("idempotency_key")
	fails := map[string]int{"c2": 2}
	work := calls.Func(key, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if fails[key(msg)] > 0 {
			fails[key(msg)]--
			return nil, errors.New("provider busy")
		}
		return []byte("done"), nil
	})
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(store, work, handler.WithRequest(request.Identity{Namespace: "ddb"}),
		handler.WithConcurrency(1), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	shard := tableStream{change(1, "A", "c1"), change(2, "B", "c2"), change(3, "A", "c3"), change(4, "B", "c4"), change(5, "B", "c2")}
	res, err := streamtest.Drain(t.Context(), shard, stream.New(h).DynamoDB, streamtest.Mapping{BatchSize: 10, MaximumRetryAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Invocations != 3 || len(res.OnFailure) != 0 || res.Checkpoint != shard[4].Change.SequenceNumber {
		t.Errorf("result %+v; want 3 invocations (c2 fails twice), nothing given up, the last change checkpointed", res)
	}
	for k, want := range map[string]int{"c1": 1, "c2": 3, "c3": 1, "c4": 1} {
		if got := calls.Count(k); got != want {
			t.Errorf("%s ran %d times; want %d", k, got, want)
		}
	}
	// B's changes in order: c4 only after c2 succeeded.
	order := calls.Order()
	last := -1
	for i, k := range order {
		if k == "c2" {
			last = i
		}
	}
	if i := slices.Index(order, "c4"); i < last {
		t.Errorf("order %v: c4 ran before c2's success", order)
	}
}
