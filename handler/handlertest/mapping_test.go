package handlertest_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Drain deletes what a response does not list, brings back what it lists
// and a failed invocation's whole batch, and dead-letters what keeps
// failing.
func TestDrain(t *testing.T) {
	t.Parallel()
	q := handlertest.NewQueue(handlertest.WithVisibility(5*time.Millisecond), handlertest.WithMaxReceives(3))
	bad := q.Send(`{"idempotency_key":"poison"}`)
	q.Send(`{"idempotency_key":"a"}`)
	q.Send(`{"idempotency_key":"b"}`)
	invocations, errored := 0, false
	h := func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		invocations++
		if !errored { // the first invocation fails as a whole
			errored = true
			return events.SQSEventResponse{}, errors.New("boom")
		}
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			if r.MessageId == bad {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return resp, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := handlertest.Drain(ctx, q, h, 10); err != nil {
		t.Fatal(err)
	}
	dead := q.DeadLetters()
	if len(dead) != 1 || dead[0].MessageId != bad {
		t.Errorf("dead letters %v, want the poison message alone", dead)
	}
	if invocations != 3 { // the failed batch, the batch that deletes a and b, the poison alone
		t.Errorf("%d invocations, want 3", invocations)
	}
}

// A handler that is not idempotent is caught: the re-send runs the work
// again, and Calls.Repeated says for which request.
func TestCallsCatchANaiveHandler(t *testing.T) {
	t.Parallel()
	var calls handlertest.Calls
	naive := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		work := calls.Func(handlertest.BodyField("idempotency_key"), nil)
		for _, r := range ev.Records {
			_, _ = work(ctx, r)
		}
		return events.SQSEventResponse{}, nil
	}
	q := handlertest.NewQueue()
	q.Send(`{"idempotency_key":"k1"}`)
	q.Send(`{"idempotency_key":"k1"}`)
	if err := handlertest.Drain(context.Background(), q, naive, 1); err != nil {
		t.Fatal(err)
	}
	if got := calls.Repeated(); got["k1"] != 2 || calls.Total() != 2 || calls.Count("k1") != 2 {
		t.Errorf("repeated %v, total %d: want k1 twice", got, calls.Total())
	}

	// The same messages through New: once.
	var once handlertest.Calls
	h := must(handler.New(must(memstore.New()), once.Func(handlertest.BodyField("idempotency_key"), nil),
		handler.WithRequest(request.Identity{Namespace: "t"}), handler.WithLogger(slog.New(slog.DiscardHandler))))
	q = handlertest.NewQueue()
	q.Send(`{"idempotency_key":"k1"}`)
	q.Send(`{"idempotency_key":"k1"}`)
	if err := handlertest.Drain(context.Background(), q, h, 1); err != nil {
		t.Fatal(err)
	}
	if once.Total() != 1 || len(once.Repeated()) != 0 {
		t.Errorf("New ran the work %d times, want 1", once.Total())
	}
}
