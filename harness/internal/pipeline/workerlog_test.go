package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// ParseWorkerLog reads the handler's own summary lines: the classes the
// pipeline checks (checkClasses) come out under the names the handler
// writes, and add up.
func TestParseWorkerLog(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, nil))
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte("ok"), nil },
		handler.WithRequest(request.Identity{Namespace: "workerlog"}), handler.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	a := handlertest.JSONMessage("m-a", map[string]string{"idempotency_key": "a"})
	b := handlertest.JSONMessage("m-b", map[string]string{"idempotency_key": "b"})
	// Batch 1: a and b fresh, a copy of a. Batch 2: a replayed from the store.
	for _, ev := range []events.SQSEvent{handlertest.Event(a, b, handlertest.Duplicate(a)), handlertest.Event(handlertest.Redelivery(a))} {
		if _, err := h(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	got := ParseWorkerLog(out.String())
	want := WorkerCounts{Batches: 2, Executed: 2, Fresh: 2, Replayed: 2, Copies: 1, StoredReplays: 1, ProviderCallsAvoided: 2}
	if got != want {
		t.Errorf("ParseWorkerLog: %+v\nwant %+v\nfrom:\n%s", got, want, out.String())
	}
	rep := &Report{Worker: got}
	checkClasses(rep)
	if len(rep.Violations) != 0 {
		t.Errorf("checkClasses on the handler's own counts: %v", rep.Violations)
	}
	rep = &Report{Worker: WorkerCounts{Executed: 3, Fresh: 2}}
	if checkClasses(rep); len(rep.Violations) == 0 {
		t.Error("checkClasses passed 3 executed as 2 fresh + 0 took over")
	}
}

// failingComplete is a store whose completions fail, as a store
// unreachable after the work is.
type failingComplete struct{ *memstore.Store }

func (failingComplete) Complete(context.Context, idem.Completion) error {
	return errors.New("store unreachable")
}

// countComesBack finds, in the handler's own log, the records whose work
// ran but whose result was not stored, and only those; no call to the
// provider failed there.
func TestCountNotStored(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(failingComplete{store}, func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		if strings.Contains(m.Body, "boom") {
			return nil, errors.New("the work failed")
		}
		return []byte("ok"), nil
	}, handler.WithRequest(request.Identity{Namespace: Namespace}), handler.WithLogger(slog.New(slog.NewJSONHandler(&out, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ev := handlertest.Event(
		handlertest.JSONMessage("m-a", map[string]string{"idempotency_key": "a"}),
		handlertest.JSONMessage("m-b", map[string]string{"idempotency_key": "b", "prompt": "boom"}),
	)
	if _, err := h(context.Background(), ev); !errors.Is(err, handler.ErrBatchFailed) {
		t.Fatalf("err = %v, want handler.ErrBatchFailed: no message of the batch is acknowledged", err)
	}
	keys := map[string]string{string(clientKey("a")): "a", string(clientKey("b")): "b"}
	got := map[string]int{}
	countComesBack(out.String(), keys, notStored, got)
	if want := map[string]int{"a": 1}; !maps.Equal(got, want) {
		t.Errorf("not stored: %v, want %v (b's work failed: nothing computed)\n%s", got, want, out.String())
	}
	calls := map[string]int{}
	countComesBack(out.String(), keys, failedCall, calls)
	if len(calls) != 0 {
		t.Errorf("failed provider calls: %v, want none (b's work failed by itself)\n%s", calls, out.String())
	}
}
