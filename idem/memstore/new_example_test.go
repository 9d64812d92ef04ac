package memstore_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
)

// A handler's test over the in-memory store: New in place of
// dynamostore.New, the same handler, and the store shows what it holds.
func ExampleNew() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte("done"), nil
	}, handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	msg := events.SQSMessage{MessageId: "m1", Body: `{"idempotency_key":"order-7"}`}
	resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
	fmt.Println("failures:", len(resp.BatchItemFailures), err)
	fmt.Println("records:", store.Len())
	// Output:
	// failures: 0 <nil>
	// records: 1
}
