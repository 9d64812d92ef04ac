package handler_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// The handler against DynamoDB Local: the branches that depend on the
// store's conditions, with the real store.
func TestDynamoDB(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	store := must(dynamostore.New(client, dynamotest.NewTable(t, client)))

	t.Run("duplicates run once", func(t *testing.T) {
		b := handlerbundle.New(t)
		h := b.WrapStore(store, nil)
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("a1", "dup-1"), handlerbundle.Msg("a2", "dup-2"), handlerbundle.Msg("a3", "dup-1")))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("a4", "dup-1"), handlerbundle.Msg("a5", "dup-2")))
		if b.TotalCalls() != 2 {
			t.Errorf("ran %d times, want 2 (one per key): %v", b.TotalCalls(), b.Calls())
		}
		for id, want := range map[string]string{"a3": "result:a1", "a4": "result:a1", "a5": "result:a2"} {
			if got, _ := b.Replayed(id); got != want {
				t.Errorf("%s replayed %q, want %q", id, got, want)
			}
		}
	})

	t.Run("failure releases for the retry", func(t *testing.T) {
		b := handlerbundle.New(t)
		handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, handlerbundle.FailOn("f1")), handlerbundle.Msg("f1", "fail-1")), "f1")
		handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, nil), handlerbundle.Msg("f1", "fail-1")))
		if b.CallCount("f1") != 2 {
			t.Errorf("ran %d times, want 2", b.CallCount("f1"))
		}
	})

	t.Run("two containers, one key", func(t *testing.T) {
		b := handlerbundle.New(t)
		started, release := make(chan struct{}), make(chan struct{})
		slow := b.WrapStore(store, func(context.Context, events.SQSMessage) ([]byte, error) {
			close(started)
			<-release
			return []byte("slow result"), nil
		})
		var wg sync.WaitGroup
		var first []string
		wg.Go(func() { first = b.Invoke(slow, handlerbundle.Msg("c1", "race-1")) })
		<-started
		// The same request, delivered to another container meanwhile.
		other := b.WrapStore(store, nil, handler.WithFailureHook(func(_ context.Context, _ events.SQSMessage, err error) {
			if !errors.Is(err, idem.ErrInProgress) {
				t.Errorf("failure = %v, want ErrInProgress", err)
			}
		}))
		handlerbundle.WantIDs(t, b.Invoke(other, handlerbundle.Msg("c2", "race-1")), "c2")
		close(release)
		wg.Wait()
		handlerbundle.WantIDs(t, first)
		handlerbundle.WantIDs(t, b.Invoke(other, handlerbundle.Msg("c2", "race-1"))) // redelivered: replayed
		if got, _ := b.Replayed("c2"); got != "slow result" {
			t.Errorf("replayed %q, want slow result", got)
		}
		if b.CallCount("c2") != 0 {
			t.Error("the second container ran the work")
		}
	})

	t.Run("result too large for an item", func(t *testing.T) {
		b := handlerbundle.New(t)
		big := b.WrapStore(store, func(context.Context, events.SQSMessage) ([]byte, error) {
			return make([]byte, 500*1024), nil
		}, handler.WithIdem(func(c *idem.Config) { c.CompressAbove = -1 })) // 500 KiB of zeros gzip to 500 bytes
		// Acknowledged: the key is completed without the result.
		handlerbundle.WantIDs(t, b.Invoke(big, handlerbundle.Msg("l1", "large-1")))
		b.WantSummary(map[string]int{"executed": 1, "result_omitted": 1})
		// The redelivery does not run the work; with nothing to hand the
		// replay hook, it fails towards the dead-letter queue.
		handlerbundle.WantIDs(t, b.Invoke(big, handlerbundle.Msg("l1", "large-1")), "l1")
		if err := b.Failure("l1"); !errors.Is(err, idem.ErrResultTooLarge) || err.Op != "replay" {
			t.Errorf("failure = %v, want ErrResultTooLarge at replay", err)
		}
		if b.TotalCalls() != 1 {
			t.Errorf("ran %d times, want once", b.TotalCalls())
		}
	})
}
