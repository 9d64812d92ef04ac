package handlertest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// A producer re-sends every request it never saw acknowledged, under a
// new message id; the queue delivers each message again until its batch
// item failure clears. The work still runs once per request.
func Example() {
	var calls handlertest.Calls
	work := calls.Func(handlertest.BodyField("idempotency_key"), nil)
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, work,
		handler.WithRequest(request.Identity{Namespace: "example"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	q := handlertest.NewQueue(handlertest.WithVisibility(10 * time.Millisecond))
	for _, key := range []string{"order-1", "order-2", "order-3"} {
		body := fmt.Sprintf(`{"idempotency_key":%q,"item":"book"}`, key)
		q.Send(body)
		q.Send(body) // the producer's re-send
	}
	if err := handlertest.Drain(context.Background(), q, h, 4); err != nil {
		panic(err)
	}
	fmt.Println("calls:", calls.Total(), "repeated:", calls.Repeated(), "dead letters:", len(q.DeadLetters()))
	// Output: calls: 3 repeated: map[] dead letters: 0
}

// On a FIFO queue a message group's work runs in the order its messages
// were sent, even when one fails and comes back: the later ones wait.
func ExampleWithFIFO() {
	var calls handlertest.Calls
	busy := true // the provider fails the first call for step-2
	work := calls.Func(handlertest.BodyField("idempotency_key"), func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if handlertest.BodyField("idempotency_key")(msg) == "step-2" && busy {
			busy = false
			return nil, errors.New("provider busy")
		}
		return []byte("done"), nil
	})
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, work,
		handler.WithRequest(request.Identity{Namespace: "example"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	q := handlertest.NewQueue(handlertest.WithFIFO(), handlertest.WithVisibility(10*time.Millisecond))
	for _, key := range []string{"step-1", "step-2", "step-3"} {
		q.SendToGroup("order-7", fmt.Sprintf(`{"idempotency_key":%q}`, key))
	}
	if err := handlertest.Drain(context.Background(), q, h, 10); err != nil {
		panic(err)
	}
	fmt.Println(calls.Order())
	// Output: [step-1 step-2 step-2 step-3]
}
