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
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
)

func TestFIFOStopsAfterFirstFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(handlerbundle.FailOn("a2"))
	// Group A: a1, a2 (fails), a3. Group B: b1 (before the failure), b2
	// (after it).
	batch := []events.SQSMessage{
		handlerbundle.FIFOMsg("a1", "ka1", "A"), handlerbundle.FIFOMsg("b1", "kb1", "B"), handlerbundle.FIFOMsg("a2", "ka2", "A"),
		handlerbundle.FIFOMsg("b2", "kb2", "B"), handlerbundle.FIFOMsg("a3", "ka3", "A"),
	}
	handlerbundle.WantIDs(t, b.Invoke(h, batch...), "a2", "b2", "a3")
	if b.CallCount("a3") != 0 {
		t.Error("a record of the failed group ran after the failure")
	}
	if err := b.Failure("a3"); !errors.Is(err, handler.ErrFIFOBlocked) {
		t.Errorf("a3 failure = %v, want ErrFIFOBlocked", err)
	}
	if err := b.Failure("b2"); !errors.Is(err, handler.ErrFIFOBlocked) {
		t.Errorf("b2 failure = %v, want ErrFIFOBlocked", err)
	}

	// Redelivered (the function works now), the records that ran are
	// replayed and the rest run, in order.
	h2 := b.wrap(handlerbundle.FailOn())
	handlerbundle.WantIDs(t, b.Invoke(h2, batch[2], batch[3], batch[4]))
	if b.CallCount("a3") != 1 || b.CallCount("a2") != 2 {
		t.Errorf("calls %v", b.Calls())
	}
}

func TestFIFOGroupIsolation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(handlerbundle.FailOn("a2"), func(c *handler.Config) { c.FIFOGroupIsolation = true })
	handlerbundle.WantIDs(t, b.Invoke(h,
		handlerbundle.FIFOMsg("a1", "ka1", "A"), handlerbundle.FIFOMsg("b1", "kb1", "B"), handlerbundle.FIFOMsg("a2", "ka2", "A"),
		handlerbundle.FIFOMsg("b2", "kb2", "B"), handlerbundle.FIFOMsg("a3", "ka3", "A"),
	), "a2", "a3")
	if b.CallCount("a3") != 0 || b.CallCount("b2") != 1 {
		t.Errorf("calls %v: want b2 run and a3 not", b.Calls())
	}
	b.WantSummary(map[string]int{"executed": 3, "failed": 1, "skipped": 1})
}

func TestFIFOInProgressCountsAsFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("ka1"), now, now.Add(time.Hour))
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.FIFOMsg("a1", "ka1", "A"), handlerbundle.FIFOMsg("a2", "ka2", "A")), "a1", "a2")
	if b.CallCount("a2") != 0 {
		t.Error("a record after an in-progress one ran")
	}
}

func TestFIFOKeyFailureBlocksLaterRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bad := handlerbundle.FIFOMsg("a1", "", "A")
	bad.Body = `{}`
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), bad, handlerbundle.FIFOMsg("b1", "kb1", "B"), handlerbundle.FIFOMsg("a2", "ka2", "A")), "a1", "b1", "a2")
	if b.TotalCalls() != 0 {
		t.Errorf("calls %v after a failure at the head of the batch", b.Calls())
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
		batch = append(batch, handlerbundle.FIFOMsg(id, id, g))
		want[g] = append(want[g], id)
	}
	handlerbundle.WantIDs(t, b.Invoke(h, batch...))
	for g, ids := range want {
		if !slices.Equal(order[g], ids) {
			t.Errorf("group %s ran %v, want %v", g, order[g], ids)
		}
	}
}

func TestFIFODuplicateAcrossGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil, handler.WithConcurrency(1)),
		handlerbundle.FIFOMsg("a1", "k1", "A"), handlerbundle.FIFOMsg("b1", "k2", "B"), handlerbundle.FIFOMsg("a2", "k2", "A"), handlerbundle.FIFOMsg("b2", "k1", "B"),
	))
	if b.TotalCalls() != 2 {
		t.Errorf("ran %d times, want 2 (one per key)", b.TotalCalls())
	}
	b.WantSummary(map[string]int{"executed": 2, "replayed": 2})
}

// Copies of a key are settled after every record that claims one, so a
// copy in one group never waits on another group's record: a copy of a
// failed record fails too, and on FIFO nothing after the first failure is
// acknowledged, even a copy whose own replay would succeed.
func TestFIFOCopiesAcrossGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(handlerbundle.FailOn("b1"), handler.WithConcurrency(1))
	// a1 claims k1; b1 (k2) fails; a2 is a copy of k1 in group A; b2 a copy
	// of k2 in group B.
	batch := []events.SQSMessage{
		handlerbundle.FIFOMsg("a1", "k1", "A"), handlerbundle.FIFOMsg("b1", "k2", "B"), handlerbundle.FIFOMsg("a2", "k1", "A"), handlerbundle.FIFOMsg("b2", "k2", "B"),
	}
	handlerbundle.WantIDs(t, b.Invoke(h, batch...), "b1", "a2", "b2")
	if b.CallCount("a1") != 1 || b.TotalCalls() != 2 {
		t.Errorf("calls %v, want a1 and b1 once each", b.Calls())
	}
	for _, id := range []string{"a2", "b2"} {
		if err := b.Failure(id); err == nil {
			t.Errorf("%s acknowledged after a failure", id)
		}
	}

	// With group isolation, group A's copy replays; group B's fails.
	b2 := setup(t)
	h = b2.wrap(handlerbundle.FailOn("b1"), handler.WithConcurrency(1), func(c *handler.Config) { c.FIFOGroupIsolation = true })
	handlerbundle.WantIDs(t, b2.Invoke(h, batch...), "b1", "b2")
	if got, _ := b2.Replayed("a2"); got != "ok" {
		t.Errorf("a2 replayed %q, want a1's result", got)
	}
}
