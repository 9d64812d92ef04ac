// Command function is the example app's order handler: the team's own
// Lambda function, fed by the team's own queue (with ORDERS_FROM=kinesis,
// the shipments stack's Kinesis stream, through handler/stream), with
// idemq's handler in front of its work, so that a second delivery of an
// order is answered from its record instead of confirming (and charging)
// it again.
//
// The handler is wired by package worker from the IDEMQ_* variables the
// Attachment sets (worker.FromEnv): the table, the key, the record
// expiry checked against the queue's settings, the back-off, the EMF
// metrics and the results bucket, with the reference worker's start-up
// checks. A bad or missing variable stops the function at start-up with
// a message naming every one at fault.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/idemq/idemq/handler/stream"

	"github.com/idemq/idemq/worker"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "order handler: %v\n", err)
		os.Exit(1)
	}
}

// run wires idemq's handler around confirm from the environment and
// serves Lambda's invocations.
func run(ctx context.Context) error {
	w, err := worker.FromEnv(ctx, os.Getenv, confirm)
	if err != nil {
		return err
	}
	defer w.Close()
	if os.Getenv("ORDERS_FROM") == "kinesis" { // the shipments stack's function
		lambda.StartWithOptions(stream.New(w.Handler).Kinesis, lambda.WithContext(ctx))
		return nil
	}
	return w.Run(ctx)
}

// order is a message of the orders queue.
type order struct {
	Key      string `json:"idempotency_key"`
	Item     string `json:"item"`
	Quantity int    `json:"quantity"`
}

// confirm is the team's work: once per order, whatever the deliveries.
func confirm(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	var o order
	if err := json.Unmarshal([]byte(msg.Body), &o); err != nil {
		return nil, fmt.Errorf("order %s: %w", msg.MessageId, err)
	}
	if o.Item == "" || o.Quantity < 1 {
		return nil, fmt.Errorf("order %s: want an item and a quantity of at least 1", o.Key)
	}
	slog.InfoContext(ctx, "order confirmed", "order", o.Key, "item", o.Item, "quantity", o.Quantity)
	return json.Marshal(map[string]any{"order": o.Key, "item": o.Item, "quantity": o.Quantity, "status": "confirmed"})
}
