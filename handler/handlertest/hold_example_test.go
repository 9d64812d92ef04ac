package handlertest_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Order is a request type: its tag says the field that makes the key.
type Order struct {
	OrderID string `json:"order_id" idemq:"key"`
	Item    string `json:"item"`
}

// Receipt is what placing an order returns, stored as JSON.
type Receipt struct {
	Charged bool `json:"charged"`
}

// placeOrder is the costly work: a charge, once per order.
func placeOrder(_ context.Context, o Order) (Receipt, error) { return Receipt{Charged: true}, nil }

// A typed handler's calls counted per order: the message, sent twice
// and delivered again, charges once.
func ExampleTypedFunc() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	var calls handlertest.Calls
	h, err := handler.NewTyped(store, handlertest.TypedFunc(&calls, func(o Order) string { return o.OrderID }, placeOrder),
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	msg := handlertest.JSONMessage("m-1", Order{OrderID: "order-7", Item: "book"})
	resp, err := h(context.Background(), handlertest.Event(msg, handlertest.Resend(msg, "m-2"), handlertest.Redelivery(msg)))
	fmt.Println("failures:", resp.BatchItemFailures, err)
	fmt.Println("charges for order-7:", calls.Count("order-7"))
	// Output:
	// failures: [] <nil>
	// charges for order-7: 1
}

// Another worker holds the order's key: the handler leaves the message
// for later, and charges nothing. When that worker completes, the next
// delivery replays its result.
func ExampleHold() {
	ctx := context.Background()
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	var calls handlertest.Calls
	h, err := handler.NewTyped(store, handlertest.TypedFunc(&calls, func(o Order) string { return o.OrderID }, placeOrder),
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	key, err := idem.ClientKey("orders", "order-7") // the handler's key for order-7
	if err != nil {
		log.Fatal(err)
	}
	owner, err := handlertest.Hold(ctx, store, key, time.Now().Add(time.Minute))
	if err != nil {
		log.Fatal(err)
	}
	msg := handlertest.JSONMessage("m-1", Order{OrderID: "order-7", Item: "book"})
	resp, _ := h(ctx, handlertest.Event(msg))
	fmt.Println("while held:", resp.BatchItemFailures, "charges:", calls.Count("order-7"))

	// The other worker finishes.
	if err := store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte(`{"charged":true}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		log.Fatal(err)
	}
	resp, _ = h(ctx, handlertest.Event(handlertest.Redelivery(msg)))
	fmt.Println("after:", resp.BatchItemFailures, "charges:", calls.Count("order-7"))
	// Output:
	// while held: [{m-1}] charges: 0
	// after: [] charges: 0
}

// A worker claimed the order and crashed: its lease ended a minute ago,
// so the next delivery takes the key over and charges, once.
func ExampleHold_expired() {
	ctx := context.Background()
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	var calls handlertest.Calls
	h, err := handler.NewTyped(store, handlertest.TypedFunc(&calls, func(o Order) string { return o.OrderID }, placeOrder),
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}

	key, err := idem.ClientKey("orders", "order-7")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := handlertest.Hold(ctx, store, key, time.Now().Add(-time.Minute)); err != nil {
		log.Fatal(err)
	}
	msg := handlertest.JSONMessage("m-1", Order{OrderID: "order-7", Item: "book"})
	resp, _ := h(ctx, handlertest.Event(msg))
	fmt.Println("failures:", resp.BatchItemFailures, "charges:", calls.Count("order-7"))
	// Output:
	// failures: [] charges: 1
}
