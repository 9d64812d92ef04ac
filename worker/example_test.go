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
