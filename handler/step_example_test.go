package handler_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/request"
)

// A step handler hands each record on by its key instead of claiming it
// in a store (package durable starts a durable execution named by it).
// The step must be idempotent by key: a copy in the batch runs it again.
// A record with no key fails and comes back; its step does not run.
func ExampleNewStepHandler() {
	reader, err := request.NewReader(request.Identity{Namespace: "summarise"})
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.NewStepHandler(reader, func(_ context.Context, msg events.SQSMessage, id request.ID) error {
		fmt.Println("handing on", msg.MessageId, "as", id.Key)
		return nil
	}, handler.WithConcurrency(1), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"idempotency_key":"doc-4471"}`},
		{MessageId: "m2", Body: `{"idempotency_key":"doc-4471"}`},
		{MessageId: "m3", Body: `{"prompt":"no key"}`},
	}})
	fmt.Println("come back:", resp.BatchItemFailures, err)
	// Output:
	// handing on m1 as summarise#doc-4471
	// handing on m2 as summarise#doc-4471
	// come back: [{m3}] <nil>
}
