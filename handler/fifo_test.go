package handler_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
)

// failOn returns a function that fails for the given message ids.
func failOn(ids ...string) handler.Func {
	return func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if slices.Contains(ids, msg.MessageId) {
			return nil, errors.New("failed on purpose")
		}
		return []byte("ok"), nil
	}
}

func TestFIFOStopsAfterFirstFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(failOn("a2"))
	// Group A: a1, a2 (fails), a3. Group B: b1 (before the failure), b2
	// (after it).
	batch := []events.SQSMessage{
		fifoMsg("a1", "ka1", "A"), fifoMsg("b1", "kb1", "B"), fifoMsg("a2", "ka2", "A"),
		fifoMsg("b2", "kb2", "B"), fifoMsg("a3", "ka3", "A"),
	}
	wantIDs(t, b.invoke(h, batch...), "a2", "b2", "a3")
	if b.callCount("a3") != 0 {
		t.Error("a record of the failed group ran after the failure")
	}
	if err := b.failure("a3"); !errors.Is(err, handler.ErrFIFOBlocked) {
		t.Errorf("a3 failure = %v, want ErrFIFOBlocked", err)
	}
	if err := b.failure("b2"); !errors.Is(err, handler.ErrFIFOBlocked) {
		t.Errorf("b2 failure = %v, want ErrFIFOBlocked", err)
	}

	// Redelivered (the function works now), the records that ran are
	// replayed and the rest run, in order.
	h2 := b.wrap(failOn())
	wantIDs(t, b.invoke(h2, batch[2], batch[3], batch[4]))
	if b.callCount("a3") != 1 || b.callCount("a2") != 2 {
		t.Errorf("calls %v", b.calls)
	}
}

func TestFIFOGroupIsolation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(failOn("a2"), handler.WithFIFOGroupIsolation())
	wantIDs(t, b.invoke(h,
		fifoMsg("a1", "ka1", "A"), fifoMsg("b1", "kb1", "B"), fifoMsg("a2", "ka2", "A"),
		fifoMsg("b2", "kb2", "B"), fifoMsg("a3", "ka3", "A"),
	), "a2", "a3")
	if b.callCount("a3") != 0 || b.callCount("b2") != 1 {
		t.Errorf("calls %v: want b2 run and a3 not", b.calls)
	}
	b.wantSummary(map[string]int{"executed": 3, "failed": 1, "skipped": 1})
}

func TestFIFOInProgressCountsAsFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("ka1"), now, now.Add(time.Hour))
	wantIDs(t, b.invoke(b.wrap(nil), fifoMsg("a1", "ka1", "A"), fifoMsg("a2", "ka2", "A")), "a1", "a2")
	if b.callCount("a2") != 0 {
		t.Error("a record after an in-progress one ran")
	}
}

func TestFIFOKeyFailureBlocksLaterRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bad := fifoMsg("a1", "", "A")
	bad.Body = `{}`
	wantIDs(t, b.invoke(b.wrap(nil), bad, fifoMsg("b1", "kb1", "B"), fifoMsg("a2", "ka2", "A")), "a1", "b1", "a2")
	if b.totalCalls() != 0 {
		t.Errorf("calls %v after a failure at the head of the batch", b.calls)
	}
}

func TestFIFOGroupsRunInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var mu sync.Mutex
	order := map[string][]string{}
	h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		g := msg.Attributes["MessageGroupId"]
		order[g] = append(order[g], msg.MessageId)
		return nil, nil
	})
	var batch []events.SQSMessage
	want := map[string][]string{}
	for i := range 10 {
		g := []string{"A", "B", "C"}[i%3]
		id := fmt.Sprintf("%s%d", g, i)
		batch = append(batch, fifoMsg(id, id, g))
		want[g] = append(want[g], id)
	}
	wantIDs(t, b.invoke(h, batch...))
	for g, ids := range want {
		if !slices.Equal(order[g], ids) {
			t.Errorf("group %s ran %v, want %v", g, order[g], ids)
		}
	}
}

func TestFIFODuplicateAcrossGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wantIDs(t, b.invoke(b.wrap(nil, handler.WithConcurrency(1)),
		fifoMsg("a1", "k1", "A"), fifoMsg("b1", "k2", "B"), fifoMsg("a2", "k2", "A"), fifoMsg("b2", "k1", "B"),
	))
	if b.totalCalls() != 2 {
		t.Errorf("ran %d times, want 2 (one per key)", b.totalCalls())
	}
	b.wantSummary(map[string]int{"executed": 2, "replayed": 2})
}

// Copies of a key are settled after every record that claims one, so a
// copy in one group never waits on another group's record: a copy of a
// failed record fails too, and on FIFO nothing after the first failure is
// acknowledged, even a copy whose own replay would succeed.
func TestFIFOCopiesAcrossGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(failOn("b1"), handler.WithConcurrency(1))
	// a1 claims k1; b1 (k2) fails; a2 is a copy of k1 in group A; b2 a copy
	// of k2 in group B.
	batch := []events.SQSMessage{
		fifoMsg("a1", "k1", "A"), fifoMsg("b1", "k2", "B"), fifoMsg("a2", "k1", "A"), fifoMsg("b2", "k2", "B"),
	}
	wantIDs(t, b.invoke(h, batch...), "b1", "a2", "b2")
	if b.callCount("a1") != 1 || b.totalCalls() != 2 {
		t.Errorf("calls %v, want a1 and b1 once each", b.calls)
	}
	for _, id := range []string{"a2", "b2"} {
		if err := b.failure(id); err == nil {
			t.Errorf("%s acknowledged after a failure", id)
		}
	}

	// With group isolation, group A's copy replays; group B's fails.
	b2 := setup(t)
	h = b2.wrap(failOn("b1"), handler.WithConcurrency(1), handler.WithFIFOGroupIsolation())
	wantIDs(t, b2.invoke(h, batch...), "b1", "b2")
	if got, _ := b2.replayed("a2"); got != "ok" {
		t.Errorf("a2 replayed %q, want a1's result", got)
	}
}
