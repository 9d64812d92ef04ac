package handlertest_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Hold, judged by the handler's own clock (idem.Config.Clock): a lease ahead
// of it holds the key, the message comes back and the work does not run;
// a lease behind it by less than the clock-skew bound still holds it;
// past the bound, the next delivery takes the key over and runs once. A
// key the store keeps completed cannot be held, nor a lease without an
// end.
func TestHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := now
	var calls handlertest.Calls
	h := must(handler.NewTyped(store, handlertest.TypedFunc[order, struct{}](&calls, func(o order) string { return o.ID }, nil),
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler)),
		handler.WithIdem(func(c *idem.Config) { c.Clock = idem.ClockFunc(func() time.Time { return clock }) })))
	key := must(idem.ClientKey("orders", "o-1"))
	msg := handlertest.JSONMessage("m-1", order{ID: "o-1"})
	deliver := func(what string, wantFailed bool, wantCalls int) {
		t.Helper()
		resp, err := h(ctx, handlertest.Event(msg))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if failed := len(resp.BatchItemFailures) == 1; failed != wantFailed || calls.Count("o-1") != wantCalls {
			t.Fatalf("%s: failures %v, calls %d; want failed %v, calls %d", what, resp.BatchItemFailures, calls.Count("o-1"), wantFailed, wantCalls)
		}
		msg = handlertest.Redelivery(msg)
	}

	if _, err := handlertest.Hold(ctx, store, key, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	deliver("held for a minute", true, 0)
	clock = now.Add(time.Minute + 200*time.Millisecond) // within the 500 ms bound
	deliver("lease ended 200 ms ago", true, 0)
	clock = now.Add(time.Minute + time.Second)
	deliver("lease ended a second ago", false, 1)

	if _, err := handlertest.Hold(ctx, store, key, clock.Add(time.Minute)); err == nil {
		t.Error("Hold of a completed key: no error")
	}
	if _, err := handlertest.Hold(ctx, store, must(idem.ClientKey("orders", "o-2")), time.Time{}); err == nil {
		t.Error("Hold without a lease's end: no error")
	}
	if got := calls.Order(); !slices.Equal(got, []string{"o-1"}) {
		t.Errorf("calls %v, want [o-1]", got)
	}
}

// The owner Hold returns completes the key as that worker would: the
// message is then replayed, not run.
func TestHoldOwnerCompletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := must(memstore.New())
	var calls handlertest.Calls
	h := must(handler.NewTyped(store, handlertest.TypedFunc[order, struct{}](&calls, func(o order) string { return o.ID }, nil),
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler))))
	key := must(idem.ClientKey("orders", "o-1"))
	owner, err := handlertest.Hold(ctx, store, key, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("complete as the holder: %v", err)
	}
	resp, err := h(ctx, handlertest.Event(handlertest.JSONMessage("m-1", order{ID: "o-1"})))
	if err != nil || len(resp.BatchItemFailures) != 0 || calls.Total() != 0 {
		t.Fatalf("after the holder completed: %v %v, %d calls; want a replay", resp.BatchItemFailures, err, calls.Total())
	}
}

type order struct {
	ID string `json:"id" idemq:"key"`
}

// TypedFunc counts a typed handler's calls per request, by the key its
// function gives, and returns the work's result (Resp's zero value
// without work).
func TestTypedFunc(t *testing.T) {
	t.Parallel()
	var calls handlertest.Calls
	fn := handlertest.TypedFunc(&calls, func(o order) string { return o.ID }, func(_ context.Context, o order) (string, error) { return "done " + o.ID, nil })
	for _, id := range []string{"a", "b", "a"} {
		if got, err := fn(context.Background(), order{ID: id}); err != nil || got != "done "+id {
			t.Fatalf("%s: %q, %v", id, got, err)
		}
	}
	if calls.Count("a") != 2 || calls.Count("b") != 1 || calls.Total() != 3 || !slices.Equal(calls.Order(), []string{"a", "b", "a"}) {
		t.Errorf("counts a %d, b %d, total %d, order %v", calls.Count("a"), calls.Count("b"), calls.Total(), calls.Order())
	}
	zero := handlertest.TypedFunc[order, int](&calls, func(o order) string { return o.ID }, nil)
	if got, err := zero(context.Background(), order{ID: "c"}); got != 0 || err != nil || calls.Count("c") != 1 {
		t.Errorf("without work: %d, %v, count %d", got, err, calls.Count("c"))
	}
}
