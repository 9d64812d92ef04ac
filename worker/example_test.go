package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/worker"
)

// A function of your own, wired from the environment the CDK construct
// gives it (here a map, and the memory store, so that it runs anywhere).
func Example() {
	env := map[string]string{
		"IDEMQ_STORE":     "memory",
		"IDEMQ_NAMESPACE": "summarise",
		"IDEMQ_KEY_FIELD": "document_id",
		"IDEMQ_BACKOFF":   "false", // no queue to give messages back to here
	}
	summarise := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		fmt.Println("summarising", msg.MessageId)
		return []byte(strings.ToUpper(msg.Body)), nil
	}
	getenv := func(name string) string { return env[name] }
	quiet := worker.WithLogger(slog.New(slog.DiscardHandler)) // by default: JSON lines on stdout
	w, err := worker.FromEnv(context.Background(), getenv, summarise, quiet)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	// On Lambda: w.Run(ctx), which is lambda.Start(w.Handler).
	batch := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"document_id":"doc-1"}`},
		{MessageId: "m2", Body: `{"document_id":"doc-1"}`}, // a duplicate: replayed
	}}
	resp, err := w.Handler(context.Background(), batch)
	fmt.Println(len(resp.BatchItemFailures), err)
	// Output:
	// summarising m1
	// 0 <nil>
}

// Order is a request type: its tag says the field that makes the key.
type Order struct {
	OrderID string `json:"order_id" idemq:"key"`
	Item    string `json:"item"`
}

// Receipt is what placing an order returns, stored as JSON.
type Receipt struct {
	Charged bool `json:"charged"`
}

// A typed function wired from the environment: each body decoded into an
// Order, keyed by its tags in IDEMQ_NAMESPACE, its Receipt stored as JSON.
func ExampleFromEnvTyped() {
	env := map[string]string{
		"IDEMQ_STORE":     "memory",
		"IDEMQ_NAMESPACE": "orders",
		"IDEMQ_BACKOFF":   "false", // no queue to give messages back to here
	}
	placeOrder := func(ctx context.Context, o Order) (Receipt, error) {
		fmt.Println("charging for", o.OrderID)
		return Receipt{Charged: true}, nil
	}
	getenv := func(name string) string { return env[name] }
	quiet := worker.WithLogger(slog.New(slog.DiscardHandler))
	w, err := worker.FromEnvTyped(context.Background(), getenv, placeOrder, quiet)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	// On Lambda: w.Run(ctx), which is lambda.Start(w.Handler).
	batch := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"order_id":"order-7","item":"book"}`},
		{MessageId: "m2", Body: `{"order_id":"order-7","item":"book"}`}, // a duplicate: replayed
	}}
	resp, err := w.Handler(context.Background(), batch)
	fmt.Println(len(resp.BatchItemFailures), err)
	// Output:
	// charging for order-7
	// 0 <nil>
}
