package handler_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/internal/dynamotest"
)

// The handler against DynamoDB Local: the branches that depend on the
// store's conditions, with the real store.
func TestDynamoDB(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	store := must(dynamostore.New(client, dynamotest.NewTable(t, client)))

	t.Run("duplicates run once", func(t *testing.T) {
		b := setup(t)
		h := b.wrapStore(store, nil)
		wantIDs(t, b.invoke(h, msg("a1", "dup-1"), msg("a2", "dup-2"), msg("a3", "dup-1")))
		wantIDs(t, b.invoke(h, msg("a4", "dup-1"), msg("a5", "dup-2")))
		if b.totalCalls() != 2 {
			t.Errorf("ran %d times, want 2 (one per key): %v", b.totalCalls(), b.calls)
		}
		for id, want := range map[string]string{"a3": "result:a1", "a4": "result:a1", "a5": "result:a2"} {
			if got, _ := b.replayed(id); got != want {
				t.Errorf("%s replayed %q, want %q", id, got, want)
			}
		}
	})

	t.Run("failure releases for the retry", func(t *testing.T) {
		b := setup(t)
		wantIDs(t, b.invoke(b.wrapStore(store, failOn("f1")), msg("f1", "fail-1")), "f1")
		wantIDs(t, b.invoke(b.wrapStore(store, nil), msg("f1", "fail-1")))
		if b.callCount("f1") != 2 {
			t.Errorf("ran %d times, want 2", b.callCount("f1"))
		}
	})

	t.Run("two containers, one key", func(t *testing.T) {
		b := setup(t)
		started, release := make(chan struct{}), make(chan struct{})
		slow := b.wrapStore(store, func(context.Context, events.SQSMessage) ([]byte, error) {
			close(started)
			<-release
			return []byte("slow result"), nil
		})
		var wg sync.WaitGroup
		var first []string
		wg.Go(func() { first = b.invoke(slow, msg("c1", "race-1")) })
		<-started
		// The same request, delivered to another container meanwhile.
		other := b.wrapStore(store, nil, handler.WithFailureHook(func(_ context.Context, _ events.SQSMessage, err error) {
			if !errors.Is(err, handler.ErrInProgress) {
				t.Errorf("failure = %v, want ErrInProgress", err)
			}
		}))
		wantIDs(t, b.invoke(other, msg("c2", "race-1")), "c2")
		close(release)
		wg.Wait()
		wantIDs(t, first)
		wantIDs(t, b.invoke(other, msg("c2", "race-1"))) // redelivered: replayed
		if got, _ := b.replayed("c2"); got != "slow result" {
			t.Errorf("replayed %q, want slow result", got)
		}
		if b.callCount("c2") != 0 {
			t.Error("the second container ran the work")
		}
	})

	t.Run("result too large for an item", func(t *testing.T) {
		b := setup(t)
		big := b.wrapStore(store, func(context.Context, events.SQSMessage) ([]byte, error) {
			return make([]byte, 500*1024), nil
		}, handler.WithIdem(idem.WithoutCompression())) // 500 KiB of zeros gzip to 500 bytes
		// Acknowledged: the key is completed without the result.
		wantIDs(t, b.invoke(big, msg("l1", "large-1")))
		b.wantSummary(map[string]int{"executed": 1, "result_omitted": 1})
		// The redelivery does not run the work; with nothing to hand the
		// replay hook, it fails towards the dead-letter queue.
		wantIDs(t, b.invoke(big, msg("l1", "large-1")), "l1")
		if err := b.failure("l1"); !errors.Is(err, idem.ErrResultTooLarge) || err.Op != "replay" {
			t.Errorf("failure = %v, want ErrResultTooLarge at replay", err)
		}
		if b.totalCalls() != 1 {
			t.Errorf("ran %d times, want once", b.totalCalls())
		}
	})
}
