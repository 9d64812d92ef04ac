package handler_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/request"
)

// corrupting is a memstore that flips a byte of every compressed result
// it stores, as a damaged record would hold it.
type corrupting struct{ *memstore.Store }

func (s corrupting) Complete(ctx context.Context, c idem.Completion) error {
	if c.Encoding == storekit.EncodingGzip {
		c.Result = bytes.Clone(c.Result)
		c.Result[len(c.Result)/2] ^= 0xff
	}
	return s.Store.Complete(ctx, c)
}

// Through the SQS handler: the work's result is stored compressed, the
// replay hook of a duplicate gets it as the work returned it, and a
// stored result that cannot be decoded fails the duplicate's record
// (it comes back, and ends in the dead-letter queue) without calling the
// hook.
func TestReplayHookSeesTheResult(t *testing.T) {
	t.Parallel()
	answer := idemtest.Prose(16 << 10)
	for _, corrupt := range []bool{false, true} {
		mem := must(memstore.New())
		var store idem.Store = mem
		if corrupt {
			store = corrupting{mem}
		}
		var (
			mu       sync.Mutex
			keys     []idem.Key
			replayed [][]byte
			failures []*handler.RecordError
		)
		h := must(handler.New(store, func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
			k, _ := handler.KeyFromContext(ctx)
			mu.Lock()
			keys = append(keys, k)
			mu.Unlock()
			return answer, nil
		},
			handler.WithRequest(request.Identity{Namespace: "compress-test"}),
			handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
			handler.WithReplayHook(func(_ context.Context, _ events.SQSMessage, result []byte) error {
				mu.Lock()
				replayed = append(replayed, bytes.Clone(result))
				mu.Unlock()
				return nil
			}),
			handler.WithFailureHook(func(_ context.Context, _ events.SQSMessage, err error) {
				re, _ := errors.AsType[*handler.RecordError](err)
				mu.Lock()
				failures = append(failures, re)
				mu.Unlock()
			}),
		))
		message := func(id string) events.SQSMessage {
			return events.SQSMessage{MessageId: id, ReceiptHandle: "rh-" + id, Body: `{"idempotency_key":"order-42"}`,
				EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs", AWSRegion: "eu-west-1"}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{message("m1")}})
		if err != nil || len(resp.BatchItemFailures) != 0 || len(keys) != 1 {
			t.Fatalf("first delivery: %+v, %v, the work ran %d times; want it run once and acknowledged", resp, err, len(keys))
		}
		rec, _ := idemtest.MustGet(t, mem, keys[0])
		if rec.Encoding != storekit.EncodingGzip || len(rec.Result) >= len(answer) {
			t.Fatalf("stored with encoding %q, %d bytes; want the answer gzipped", rec.Encoding, len(rec.Result))
		}

		resp, err = h(ctx, events.SQSEvent{Records: []events.SQSMessage{message("m2")}})
		cancel()
		if (err != nil && !(corrupt && errors.Is(err, handler.ErrBatchFailed))) || len(keys) != 1 {
			t.Fatalf("duplicate: %v, the work ran %d times; want once in all", err, len(keys))
		}
		if !corrupt {
			if len(resp.BatchItemFailures) != 0 || len(replayed) != 1 || !bytes.Equal(replayed[0], answer) {
				t.Fatalf("duplicate: failures %+v, the hook got %d results; want the answer as the work returned it", resp.BatchItemFailures, len(replayed))
			}
			continue
		}
		if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "m2" || len(replayed) != 0 {
			t.Fatalf("duplicate of a corrupt record: failures %+v, the hook called %d times; want m2 failed and no hook", resp.BatchItemFailures, len(replayed))
		}
		if len(failures) != 1 || failures[0] == nil || !errors.Is(failures[0], idem.ErrUnreadableResult) || failures[0].Op != "replay" {
			t.Fatalf("failure %v, want idem.ErrUnreadableResult at the replay", failures)
		}
	}
}
