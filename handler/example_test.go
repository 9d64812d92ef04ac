package handler_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// summarise stands for a model call: billed every time it runs.
func summarise(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	fmt.Println("generating for", msg.MessageId)
	return []byte("a summary"), nil
}

func delivery(id string) events.SQSEvent {
	return events.SQSEvent{Records: []events.SQSMessage{{
		MessageId:      id,
		Body:           `{"idempotency_key":"request-42","prompt":"Summarise document 4471"}`,
		EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs",
	}}}
}

// New returns an error naming every setting that cannot be safe, before
// any record is read, each an *idem.ConfigError (errors.As gives the
// first).
func ExampleNew() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	_, err = handler.New(store, summarise, handler.WithRequest(request.Identity{Namespace: "summariser"}), handler.WithConcurrency(-1), func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 0 })
	fmt.Println(err)
	var bad *idem.ConfigError
	if errors.As(err, &bad) {
		fmt.Println(bad.Package, bad.Field)
	}
	h, err := handler.New(store, summarise, handler.WithRequest(request.Identity{Namespace: "summariser"}),
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	resp, err := h(context.Background(), delivery("msg-1"))
	fmt.Println("batch item failures:", len(resp.BatchItemFailures), err)
	// Output:
	// handler: Concurrency -1: must not be negative (0 is DefaultConcurrency)
	// handler: CacheBytes 0: must be at least 1 with CacheEntries, or both 0 (off)
	// handler Concurrency
	// generating for msg-1
	// batch item failures: 0 <nil>
}

// A duplicate (here a producer's re-send, with a new message id) does not
// run the function: the stored result goes to the replay hook and the
// message is acknowledged.
func ExampleNew_replay() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, summarise,
		handler.WithRequest(request.Identity{Namespace: "summariser"}),
		handler.WithLogger(slog.New(slog.DiscardHandler)),
		handler.WithReplayHook(func(_ context.Context, msg events.SQSMessage, result []byte) error {
			fmt.Printf("replayed for %s: %s\n", msg.MessageId, result)
			return nil
		}))
	if err != nil {
		log.Fatal(err)
	}

	for _, id := range []string{"msg-1", "msg-2"} {
		resp, _ := h(context.Background(), delivery(id))
		fmt.Println("batch item failures:", len(resp.BatchItemFailures))
	}
	// Output:
	// generating for msg-1
	// batch item failures: 0
	// replayed for msg-2: a summary
	// batch item failures: 0
}

// While another worker holds the key, the message is reported as a batch
// item failure: the queue delivers it again later, when the other worker
// has finished (and it is replayed) or its lease has passed.
func ExampleNew_inProgress() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("summariser", "request-42")
	if _, err := handlertest.Hold(context.Background(), store, key, time.Now().Add(time.Minute)); err != nil { // another worker
		log.Fatal(err)
	}
	h, err := handler.New(store, summarise,
		handler.WithRequest(request.Identity{Namespace: "summariser"}),
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	resp, err := h(context.Background(), delivery("msg-3"))
	fmt.Println(resp.BatchItemFailures, err)
	// Output:
	// [{msg-3}] <nil>
}

// The claim's settings are idem.Config's, passed on with WithIdem: here a
// record expiry sized for the queue and a heartbeat for calls that may
// outlast the lease.
func ExampleWithIdem() {
	life, err := queue.RecordLifetime(queue.Settings{
		Retention:           4 * 24 * time.Hour, // SQS's default
		VisibilityTimeout:   12 * time.Minute,   // 6 × a 2-minute function timeout
		MaxReceives:         5,
		DeadLetterRetention: 14 * 24 * time.Hour, // a redrive from the dead-letter queue still replays
	}, 2*time.Minute) // the function's timeout
	if err != nil {
		log.Fatal(err)
	}
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, summarise,
		handler.WithRequest(request.Identity{Namespace: "summariser"}),
		handler.WithLogger(slog.New(slog.DiscardHandler)),
		handler.WithIdem(idem.WithExpiry(life), idem.WithLease(2*time.Minute), idem.WithHeartbeat(30*time.Second)))
	if err != nil {
		log.Fatal(err)
	}

	resp, err := h(context.Background(), delivery("msg-1"))
	fmt.Println("record expiry:", life)
	fmt.Println("batch item failures:", len(resp.BatchItemFailures), err)
	// Output:
	// generating for msg-1
	// record expiry: 541h15m0s
	// batch item failures: 0 <nil>
}

// A function of two steps — a billed model call, then an email — keeps
// the first step's result under a key made from its record's key, so when
// the email fails and the message comes back, the model is not paid for
// again.
func ExampleKeyFromContext() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	modelCalls, emails := 0, 0
	summariseAndEmail := func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
		key, _ := handler.KeyFromContext(ctx)
		step, err := idem.ClientKey("summarise.model", string(key))
		if err != nil {
			return nil, err
		}
		summary, err := idem.Do(ctx, store, step, "", func(context.Context) ([]byte, error) {
			modelCalls++
			return []byte("a summary"), nil
		})
		if err != nil || summary.Outcome == idem.InProgress {
			return nil, fmt.Errorf("model step: %v, %w", summary.Outcome, err)
		}
		emails++
		if emails == 1 {
			return nil, errors.New("smtp: 421 try again later")
		}
		return summary.Value, nil
	}
	h, err := handler.New(store, summariseAndEmail,
		handler.WithRequest(request.Identity{Namespace: "summarise"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	q := handlertest.NewQueue(handlertest.WithVisibility(10 * time.Millisecond))
	q.Send(`{"idempotency_key":"document-4471-v9"}`)
	if err := handlertest.Drain(context.Background(), q, h, 10); err != nil {
		panic(err)
	}
	fmt.Println("model calls:", modelCalls, "email attempts:", emails)
	// Output: model calls: 1 email attempts: 2
}

// A newcomer's function, keyed by what the request says — document 4471 at
// version 9 — and tested on a FIFO queue with handlertest: the producer's
// re-send, spelled another way, is replayed, and each document's requests
// run in the order they were sent.
func ExampleWithRequest_keyFields() {
	var calls handlertest.Calls
	docVersion := func(msg events.SQSMessage) string {
		obj, _ := idemjson.Parse(msg.Body)
		v, _ := obj.NaturalValue("document_id", "version")
		return v
	}
	summarise := calls.Func(docVersion, func(context.Context, events.SQSMessage) ([]byte, error) {
		return []byte("a summary"), nil // the billed model call, then the email
	})
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, summarise,
		handler.WithRequest(request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}}),
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	q := handlertest.NewQueue(handlertest.WithFIFO(), handlertest.WithVisibility(10*time.Millisecond))
	q.SendToGroup("doc-4471", `{"document_id":4471,"version":9}`)
	q.SendToGroup("doc-4471", `{"document_id":4471,"version":10}`)
	q.SendToGroup("doc-4471", `{"document_id":"4471","version":"9"}`) // the re-send of the first
	q.SendToGroup("doc-5000", `{"document_id":5000,"version":1}`)
	if err := handlertest.Drain(context.Background(), q, h, 10); err != nil {
		panic(err)
	}
	var doc4471 []string // the groups run side by side: look at one
	for _, k := range calls.Order() {
		if strings.HasPrefix(k, "document_id:4471:") {
			doc4471 = append(doc4471, k)
		}
	}
	fmt.Println(doc4471, "calls:", calls.Total(), "repeated:", calls.Repeated())
	// Output: [document_id:4471:version:9 document_id:4471:version:10] calls: 3 repeated: map[]
}
