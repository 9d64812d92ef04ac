package producer_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// Summarise is a request type, shared by the program that sends it and
// the worker that runs it.
type Summarise struct {
	DocumentID string `json:"document_id" idemq:"key"`
	Version    int    `json:"version" idemq:"key"`
	Prompt     string `json:"prompt"`
}

// The request type says the key: the producer sends a Summarise as JSON
// and the typed handler claims the key its fields make. The queue is an
// in-memory stand-in for SQS that loses its first answer, so the request
// is on it twice.
func ExampleNewTyped() {
	typ, err := request.NewType[Summarise](request.Identity{Namespace: "summarise"})
	if err != nil {
		log.Fatal(err)
	}
	queue := &fakeSQS{loseNext: 1}
	p, err := producer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", producer.WithRequest(typ.Identity()))
	if err != nil {
		log.Fatal(err)
	}
	send, err := producer.NewTyped[Summarise](p)
	if err != nil {
		log.Fatal(err) // p reads keys otherwise than Summarise's tags say
	}
	sent, err := send.Send(context.Background(), Summarise{DocumentID: "doc-1", Version: 9, Prompt: "in brief"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("record:", sent.RecordKey, "attempts:", sent.Attempts)

	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.NewTyped(store, func(_ context.Context, req Summarise) (string, error) {
		fmt.Println("summarising", req.DocumentID, "version", req.Version)
		return "a summary", nil
	}, handler.WithRequest(typ.Identity()), handler.WithConcurrency(1),
		handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		log.Fatal(err)
	}
	var event events.SQSEvent
	for i, body := range queue.taken() {
		event.Records = append(event.Records, events.SQSMessage{MessageId: fmt.Sprint("m", i), Body: body})
	}
	resp, err := h(context.Background(), event)
	fmt.Println("messages:", len(event.Records), "failures:", len(resp.BatchItemFailures), err)
	// Output:
	// record: summarise#document_id:doc-1:version:9 attempts: 2
	// summarising doc-1 version 9
	// messages: 2 failures: 0 <nil>
}
