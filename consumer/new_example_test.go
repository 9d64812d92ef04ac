package consumer_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
)

// A consumer polls a queue with a handler until its context ends. A
// program passes an *sqs.Client and a context signal.NotifyContext ends on
// SIGTERM; here an in-memory queue holds one message, and the context ends
// once it is deleted.
func ExampleNew() {
	queue := newFakeSQS(30 * time.Second)
	queue.send(`{"idempotency_key":"order-7"}`)
	store, _ := memstore.New()
	h, err := handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte("done"), nil
	}, handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	c, err := consumer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", h,
		consumer.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		for c.Stats().Deleted < 1 {
			time.Sleep(10 * time.Millisecond)
		}
		stop()
	}()
	fmt.Println("run:", c.Run(ctx))
	fmt.Println("deleted:", c.Stats().Deleted)
	// Output:
	// run: <nil>
	// deleted: 1
}
