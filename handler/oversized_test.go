package handler_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

const omittedLog = "idemq: result not stored: too large; the key is completed without it"

// A result too large to store does not make the work run again: the first
// delivery is acknowledged, the key completed without the result, and an
// error logged; no redelivery runs the function.
func TestResultTooLarge(t *testing.T) {
	t.Parallel()
	t.Run("runs once", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.store = must(memstore.New(memstore.WithMaxResultBytes(4)))
		h := b.wrap(nil, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 100, 1<<20 })

		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
		b.WantSummary(map[string]int{"executed": 1, "result_omitted": 1, "failed": 0, "batch_item_failures": 0})
		rec, ok := idemtest.MustGet(t, b.store, key("k1"))
		if !ok || rec.Status != idem.StatusCompleted || rec.OmittedBytes != len("result:m1") || rec.Result != nil {
			t.Fatalf("record %+v, %v; want COMPLETED without the result", rec, ok)
		}
		lines := b.Logged(omittedLog)
		if len(lines) != 1 {
			t.Fatalf("%d lines %q, want 1", len(lines), omittedLog)
		}
		l := lines[0]
		if l["level"] != "ERROR" || l["message_id"] != "m1" || l["key"] != string(key("k1")) || l["result_bytes"] != float64(len("result:m1")) {
			t.Errorf("log line %v, want an error naming m1, its key and the result's size", l)
		}

		// Redeliveries, under the first message id or a producer's new
		// one: the function does not run, and the replay hook is not
		// handed nil for a result. The record fails, towards the
		// dead-letter queue; it is not in the cache either.
		for _, id := range []string{"m1", "m2", "m1"} {
			handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg(id, "k1")), id)
			if err := b.Failure(id); !errors.Is(err, idem.ErrResultTooLarge) || err.Op != "replay" || err.Key != key("k1") {
				t.Errorf("failure of %s = %v, want ErrResultTooLarge at replay", id, err)
			}
			b.WantSummary(map[string]int{"failed": 1, "cache_hits": 0, "result_omitted": 0, "batch_item_failures": 1})
		}
		if _, ok := b.Replayed("m2"); ok {
			t.Error("the replay hook was called with no result")
		}

		// Without a replay hook nothing waits for the result: a duplicate
		// is acknowledged as replayed.
		plain := must(handler.New(b.store, func(context.Context, events.SQSMessage) ([]byte, error) {
			t.Error("the function ran for a completed key")
			return nil, nil
		}, handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithLogger(slog.New(slog.NewJSONHandler(b.Logs, nil)))))
		handlerbundle.WantIDs(t, b.Invoke(plain, handlerbundle.Msg("m3", "k1")))
		b.WantSummary(map[string]int{"replayed": 1, "failed": 0, "batch_item_failures": 0})

		if n := b.TotalCalls(); n != 1 {
			t.Errorf("the function ran %d times over 5 deliveries, want once", n)
		}
	})
	t.Run("copies in the batch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.store = must(memstore.New(memstore.WithMaxResultBytes(4)))
		// The copy shares the execution's fresh result, which it has at
		// hand although it could not be stored.
		handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("a", "k1"), handlerbundle.Msg("b", "k1")))
		if got, _ := b.Replayed("b"); got != "result:a" || b.TotalCalls() != 1 {
			t.Errorf("copy replayed %q after %d runs, want result:a after 1", got, b.TotalCalls())
		}
		b.WantSummary(map[string]int{"executed": 1, "replayed": 1, "result_omitted": 1, "batch_item_failures": 0})
	})
}
