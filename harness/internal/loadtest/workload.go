package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Request is one unique request of a workload: a key and its prompt.
type Request struct {
	Key    string
	Prompt string
}

// Body returns the message body the producer sends for r, in the shape the
// reference worker (lambda/) reads: {"idempotency_key", "model", "prompt"}.
func (r Request) Body() string {
	raw, _ := json.Marshal(map[string]string{"idempotency_key": r.Key, "model": "test-model", "prompt": r.Prompt})
	return string(raw)
}

// Payload returns the request without its key, {"model", "prompt"}: what
// a producer that puts the key in the body (package producer) is given.
// With the key put first it is Body.
func (r Request) Payload() string {
	raw, _ := json.Marshal(map[string]string{"model": "test-model", "prompt": r.Prompt})
	return string(raw)
}

// Workload returns n requests with keys req-0000, req-0001, ... and a
// prompt of their own each, so a Provider's count per prompt is a count
// per key.
func Workload(n int) []Request {
	out := make([]Request, n)
	for i := range out {
		key := fmt.Sprintf("req-%04d", i)
		out[i] = Request{Key: key, Prompt: fmt.Sprintf("summarise document %d (%s)", i, key)}
	}
	return out
}

// Send is the producer: it sends every request with send, then sends
// again, under new message ids, the requests fault ProducerResend picks,
// gap apart, while the first copies are being worked on. It returns how
// many it re-sent.
func Send(ctx context.Context, reqs []Request, f Faults, gap time.Duration, send func(ctx context.Context, r Request) error) (resent int, err error) {
	for _, r := range reqs {
		if err := send(ctx, r); err != nil {
			return 0, fmt.Errorf("handlertest: send %s: %w", r.Key, err)
		}
	}
	for _, r := range reqs {
		if !f.Picks(ProducerResend, r.Key) {
			continue
		}
		select {
		case <-time.After(gap):
		case <-ctx.Done():
			return resent, ctx.Err()
		}
		if err := send(ctx, r); err != nil {
			return resent, fmt.Errorf("handlertest: re-send %s: %w", r.Key, err)
		}
		resent++
	}
	return resent, nil
}
