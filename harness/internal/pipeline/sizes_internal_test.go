package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// lostBlobs keeps objects in memory, and loses them all at will.
type lostBlobs struct{ m map[string][]byte }

func (b *lostBlobs) Put(_ context.Context, name string, data []byte) error {
	b.m[name] = bytes.Clone(data)
	return nil
}

func (b *lostBlobs) Get(_ context.Context, name string, _ int) ([]byte, error) {
	data, ok := b.m[name]
	if !ok {
		return nil, fmt.Errorf("lostBlobs %s: %w", name, idem.ErrBlobMissing)
	}
	return data, nil
}

// The handler's own log line for a duplicate whose object is gone is
// found, and nothing else it logs is taken for one.
func TestReplayFailures(t *testing.T) {
	var out bytes.Buffer
	blobs := &lostBlobs{m: map[string][]byte{}}
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) {
		return []byte(strings.Repeat("a long answer ", 2000)), nil
	}, handler.WithLogger(slog.New(slog.NewJSONHandler(&out, nil))), handler.WithRequest(request.Identity{Namespace: "t"}),
		handler.WithIdem(idem.WithBlobs(blobs), func(c *idem.Config) { c.OffloadAbove = 1 }))
	if err != nil {
		panic(err)
	}
	event := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: `{"idempotency_key":"k1"}`,
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}}}
	for i := range 2 { // executed, then replayed
		if resp, err := h(t.Context(), event); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("delivery %d: %+v, %v", i, resp, err)
		}
	}
	if got := replayFailures(out.String()); len(got) != 0 {
		t.Fatalf("replay failures %q in the log of a good replay:\n%s", got, out.String())
	}
	clear(blobs.m)
	if resp, err := h(t.Context(), event); !errors.Is(err, handler.ErrBatchFailed) || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("the duplicate whose object is gone: %+v, %v; want it back (the batch's one message: the invocation fails)", resp, err)
	}
	if got := replayFailures(out.String()); len(got) != 1 || !strings.Contains(got[0], "k1") {
		t.Fatalf("replay failures %q; want the one of k1 in:\n%s", got, out.String())
	}
}
