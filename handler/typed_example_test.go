package handler_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Summarise is a request type: its tags say which fields make the key.
type Summarise struct {
	DocumentID string `json:"document_id" idemq:"key"`
	Version    int    `json:"version" idemq:"key"`
	Prompt     string `json:"prompt"`
}

// Summary is what summarising returns, stored as JSON.
type Summary struct {
	Text string `json:"text"`
}

// A function of a request type: the body is decoded into it, its result
// stored as JSON, and a duplicate's replay hook gets the result typed.
// In Lambda: h, err := handler.NewTyped(store, summariseDocument), then
// lambda.Start(h).
func ExampleNewTyped() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	summariseDocument := func(_ context.Context, req Summarise) (Summary, error) {
		fmt.Println("generating for", req.DocumentID, "version", req.Version)
		return Summary{Text: "a summary of " + req.DocumentID}, nil
	}
	h, err := handler.NewTyped(store, summariseDocument,
		handler.WithRequest(request.Identity{Namespace: "summarise"}), // in Lambda: the function's name
		handler.WithTypedReplayHook(func(_ context.Context, msg events.SQSMessage, s Summary) error {
			fmt.Println("replayed to", msg.MessageId+":", s.Text)
			return nil
		}),
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err) // a bad tag of Summarise, or an option against one
	}
	body := `{"document_id":"doc-1","version":9,"prompt":"in three sentences"}`
	resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "msg-1", Body: body, EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs"},
		{MessageId: "msg-2", Body: body, EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs"},
		{MessageId: "msg-3", Body: `{"document_id":"doc-2","version":"nine"}`, EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs"},
	}})
	fmt.Println("batch item failures:", resp.BatchItemFailures, err)
	// Output:
	// generating for doc-1 version 9
	// replayed to msg-2: a summary of doc-1
	// batch item failures: [{msg-3}] <nil>
}
