package worker_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/worker"
)

// New wires a worker from settings read once (idemqenv.Read, here of a
// map; os.Getenv in a program), so a program can look at them, or log
// them, before it wires anything.
func ExampleNew() {
	env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "mailer", "IDEMQ_BACKOFF": "false"}
	s, err := idemqenv.Read(func(name string) string { return env[name] })
	if err != nil {
		log.Fatal(err) // every bad variable, each by its name
	}
	send := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		fmt.Println("sending", msg.Body)
		return []byte("sent"), nil
	}
	w, err := worker.New(context.Background(), s, send, worker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	batch := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"idempotency_key":"welcome-7"}`},
		{MessageId: "m2", Body: `{"idempotency_key":"welcome-7"}`}, // a duplicate: replayed
	}}
	resp, err := w.Handler(context.Background(), batch)
	fmt.Println("failures:", len(resp.BatchItemFailures), err)
	// Output:
	// sending {"idempotency_key":"welcome-7"}
	// failures: 0 <nil>
}

// NewFrontDoor wires the HTTP front door of IDEMQ_MODE=frontdoor: POST
// enqueues on IDEMQ_FRONTDOOR_QUEUE_URL, GET answers from the worker's
// store. Here the store is in memory and holds no record yet.
func ExampleNewFrontDoor() {
	env := map[string]string{
		"IDEMQ_MODE":                "frontdoor",
		"IDEMQ_STORE":               "memory",
		"IDEMQ_NAMESPACE":           "summarise",
		"IDEMQ_FRONTDOOR_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
		"IDEMQ_FRONTDOOR_SCOPE":     "none", // one key space for every caller
	}
	s, err := idemqenv.Read(func(name string) string { return env[name] })
	if err != nil {
		log.Fatal(err)
	}
	w, err := worker.NewFrontDoor(context.Background(), s, worker.WithAWSConfig(aws.Config{Region: "eu-west-1"}),
		worker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	// In a program: http.ListenAndServe(addr, w.FrontDoor), or w.Run(ctx).
	rec := httptest.NewRecorder()
	w.FrontDoor.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/requests/req-7", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output:
	// 404 application/problem+json
}

// NewDispatcher wires IDEMQ_MODE=dispatch: one durable execution of
// IDEMQ_DURABLE_FUNCTION started per key. (Not run: it serves Lambda.)
func ExampleNewDispatcher() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	s, err := idemqenv.Read(os.Getenv) // IDEMQ_MODE=dispatch, IDEMQ_DURABLE_FUNCTION=summarise:prod
	if err != nil {
		log.Fatal(err)
	}
	w, err := worker.NewDispatcher(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if err := w.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
