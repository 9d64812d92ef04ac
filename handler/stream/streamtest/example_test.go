package streamtest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/handler/stream/streamtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// A producer puts each order twice (its PutRecord retried: a new
// sequence number), and the provider fails order-2's first call: the
// shard resumes from it, and the records after it replay their stored
// results. The work succeeds once per order (order-2's second call is
// its retry).
func Example() {
	var calls handlertest.Calls
	key := handlertest.BodyField("idempotency_key")
	failed := false
	work := calls.Func(key, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if key(msg) == "order-2" && !failed {
			failed = true
			return nil, errors.New("provider busy")
		}
		return []byte("done"), nil
	})
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, work,
		handler.WithRequest(request.Identity{Namespace: "example"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	var shard streamtest.Shard
	for _, order := range []string{"order-1", "order-2", "order-3"} {
		data := fmt.Appendf(nil, `{"idempotency_key":%q}`, order)
		shard.Put("customer-7", data)
		shard.Put("customer-7", data) // the producer's retried PutRecord
	}
	res, err := streamtest.Drain(context.Background(), &shard, stream.New(h).Kinesis, streamtest.Mapping{BatchSize: 4, MaximumRetryAttempts: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("calls:", calls.Total(), "order:", calls.Order(), "invocations:", res.Invocations, "given up:", len(res.OnFailure))
	// Output: calls: 4 order: [order-1 order-2 order-2 order-3] invocations: 2 given up: 0
}
