package handlertest_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
)

// A producer re-sends every request it never saw acknowledged, under a
// new message id; the queue delivers each message again until its batch
// item failure clears. The work still runs once per request.
func Example() {
	var calls handlertest.Calls
	work := calls.Func(handlertest.BodyField("idempotency_key"), nil)
	h := handler.WrapSQS(memstore.New(), work,
		handler.WithNamespace("example"), handler.WithLogger(slog.New(slog.DiscardHandler)))

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
