package consumer_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// A worker off Lambda: the handler handler.New returns, run by a consumer.
// Here the queue is an in-memory stand-in for SQS (any consumer.SQS, such
// as *sqs.Client, will do) holding one request sent three times.
func Example() {
	queue := newFakeSQS(30 * time.Second)
	for range 3 {
		queue.send(`{"idempotency_key":"order-1042","prompt":"summarise"}`)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	var executions atomic.Int32
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		executions.Add(1) // the model call, billed once
		return []byte("summary"), nil
	}, handler.WithRequest(request.Identity{Namespace: "summarise"}), handler.WithLogger(quiet))
	if err != nil {
		log.Fatal(err)
	}

	c, err := consumer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", h,
		consumer.WithConfig(consumer.Config{MaxRunTime: time.Hour, Logger: quiet}))
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	for c.Stats().Deleted < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Stop(context.Background()); err != nil {
		fmt.Println(err)
	}
	fmt.Println("executions:", executions.Load())
	fmt.Println("deleted:", c.Stats().Deleted)
	// Output:
	// executions: 1
	// deleted: 3
}
