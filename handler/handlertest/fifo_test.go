package handlertest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// A FIFO queue delivers a group's messages in order and none while an
// earlier one of the group is in flight; other groups go on.
func TestFIFOQueueOrder(t *testing.T) {
	t.Parallel()
	q := handlertest.NewQueue(handlertest.WithFIFO(), handlertest.WithVisibility(time.Hour))
	a1 := q.SendToGroup("A", `{"n":"a1"}`)
	a2 := q.SendToGroup("A", `{"n":"a2"}`)
	b1 := q.SendToGroup("B", `{"n":"b1"}`)
	ctx := context.Background()
	receive := func(max int) []string {
		t.Helper()
		msgs, err := q.Receive(ctx, max, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range msgs {
			if m.EventSourceARN != handlertest.FIFOEventSourceARN || m.Attributes["MessageGroupId"] == "" {
				t.Errorf("%s: ARN %s, group %q: not a FIFO message", m.MessageId, m.EventSourceARN, m.Attributes["MessageGroupId"])
			}
			ids = append(ids, m.MessageId)
		}
		return ids
	}
	if got := receive(1); !slices.Equal(got, []string{a1}) {
		t.Fatalf("first receive %v, want [%s]", got, a1)
	}
	// a1 is in flight: group A waits, B goes.
	if got := receive(10); !slices.Equal(got, []string{b1}) {
		t.Fatalf("second receive %v, want [%s]", got, b1)
	}
	if got := receive(10); len(got) != 0 {
		t.Fatalf("third receive %v, want nothing: every group has a message in flight", got)
	}
	if err := q.Delete(ctx, []events.SQSMessage{handlertest.Message(a1, "")}); err != nil {
		t.Fatal(err)
	}
	if got := receive(10); !slices.Equal(got, []string{a2}) {
		t.Fatalf("after a1's deletion: %v, want [%s]", got, a2)
	}
}

func TestFIFOQueueSendNeedsAGroup(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Send on a FIFO queue did not panic")
		}
	}()
	handlertest.NewQueue(handlertest.WithFIFO()).Send(`{}`)
}

// Through Drain and the handler, a group's work runs in the order the
// messages were sent, even when one of them fails and comes back, and a
// re-send of an earlier request is replayed, not run.
func TestFIFODrainKeepsOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		isolation bool
		batch     int
	}{{false, 10}, {true, 10}, {false, 1}} {
		isolation := tc.isolation
		t.Run(fmt.Sprintf("group isolation %v, batches of %d", isolation, tc.batch), func(t *testing.T) {
			t.Parallel()
			var calls handlertest.Calls
			var mu sync.Mutex
			failedOnce := false
			work := calls.Func(handlertest.BodyField("idempotency_key"), func(_ context.Context, m events.SQSMessage) ([]byte, error) {
				mu.Lock()
				defer mu.Unlock()
				if handlertest.BodyField("idempotency_key")(m) == "a2" && !failedOnce {
					failedOnce = true
					return nil, errors.New("the provider is busy")
				}
				return []byte("ok"), nil
			})
			opts := []handler.Option{handler.WithRequest(request.Identity{Namespace: "fifo"}), handler.WithLogger(slog.New(slog.DiscardHandler))}
			if isolation {
				opts = append(opts, func(c *handler.Config) { c.FIFOGroupIsolation = true })
			}
			h := must(handler.New(must(memstore.New()), work, opts...))
			q := handlertest.NewQueue(handlertest.WithFIFO(), handlertest.WithVisibility(10*time.Millisecond))
			for _, m := range []struct{ group, key string }{
				{"A", "a1"}, {"B", "b1"}, {"A", "a2"}, {"B", "b2"}, {"A", "a3"}, {"A", "a1"}, // a1 re-sent
			} {
				q.SendToGroup(m.group, fmt.Sprintf(`{"idempotency_key":%q}`, m.key))
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := handlertest.Drain(ctx, q, h, tc.batch); err != nil {
				t.Fatal(err)
			}
			var groupA []string
			for _, k := range calls.Order() {
				if k[0] == 'a' {
					groupA = append(groupA, k)
				}
			}
			if want := []string{"a1", "a2", "a2", "a3"}; !slices.Equal(groupA, want) {
				t.Errorf("group A's calls %v, want %v", groupA, want)
			}
			if calls.Count("b1") != 1 || calls.Count("b2") != 1 || len(q.DeadLetters()) != 0 {
				t.Errorf("calls %v, dead letters %d: want b1 and b2 once, none dead", calls.Order(), len(q.DeadLetters()))
			}
		})
	}
}
