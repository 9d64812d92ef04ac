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

// A send whose answer is lost is sent again with the same key: the queue
// holds the request twice, and the handler runs it once. Here the queue is
// an in-memory stand-in for SQS (any producer.SQSAPI, such as
// *sqs.Client, will do) that loses its first answer after taking the
// message.
func Example() {
	queue := &fakeSQS{loseNext: 1}
	p, err := producer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs")
	if err != nil {
		log.Fatal(err)
	}
	sent, err := p.Send(context.Background(), producer.Message{
		Key:  "order-1042",
		Body: []byte(`{"prompt":"summarise document 4471"}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("key:", sent.Key, "attempts:", sent.Attempts)
	for _, body := range queue.taken() {
		fmt.Println("on the queue:", body)
	}

	// The worker: a handler over both copies.
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	executions := 0
	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		executions++ // the model call, billed once
		return []byte("a summary"), nil
	}, handler.WithRequest(request.Identity{Namespace: "summarise"}), handler.WithConcurrency(1),
		handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		log.Fatal(err)
	}
	var event events.SQSEvent
	for i, body := range queue.taken() {
		event.Records = append(event.Records, events.SQSMessage{MessageId: fmt.Sprint("m", i), Body: body})
	}
	resp, err := h(context.Background(), event)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("executions:", executions, "failures:", len(resp.BatchItemFailures))
	// Output:
	// key: order-1042 attempts: 2
	// on the queue: {"idempotency_key":"order-1042","prompt":"summarise document 4471"}
	// on the queue: {"idempotency_key":"order-1042","prompt":"summarise document 4471"}
	// executions: 1 failures: 0
}
