package pipeline

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/harness/internal/demo"
	"github.com/idemq/idemq/harness/internal/loadtest"
)

// naive runs one of internal/demo's naive variants as an in-process
// function: each record of a batch, side by side, through the variant's
// Process, with a model call as long as the pipeline's. It counts the calls
// and outcomes itself (the demo's provider is in process).
type naive struct {
	v        demo.Variant
	callTime func(key string) time.Duration

	mu     sync.Mutex
	calls  map[string]int
	counts WorkerCounts
}

func newNaive(v Variant, storeLatency time.Duration, callTime func(string) time.Duration) *naive {
	n := &naive{callTime: callTime, calls: map[string]int{}}
	if v == MarkAfter {
		n.v = demo.NewMarkAfter(storeLatency)
	} else {
		n.v = demo.NewReadThenWrite(storeLatency)
	}
	return n
}

// invoker returns the function as an instance.
func (n *naive) invoker() loadtest.Invoker {
	return loadtest.InvokerFunc(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		failed := make([]bool, len(ev.Records))
		var wg sync.WaitGroup
		for i, m := range ev.Records {
			wg.Go(func() { failed[i] = !n.process(ctx, m) })
		}
		wg.Wait()
		var resp events.SQSEventResponse
		for i, f := range failed {
			if f {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
			}
		}
		n.mu.Lock()
		n.counts.Batches++
		n.mu.Unlock()
		return resp, nil
	})
}

// process runs one record; it reports whether the message may be deleted.
func (n *naive) process(ctx context.Context, m events.SQSMessage) bool {
	var b struct {
		Key    string `json:"idempotency_key"`
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal([]byte(m.Body), &b) != nil || b.Key == "" {
		n.count(func(c *WorkerCounts) { c.Failed++ })
		return false
	}
	// A provider of its own per delivery tells whether this delivery
	// called; its call takes as long as the pipeline's.
	p := demo.NewProvider(n.callTime(b.Key))
	ack, _ := n.v.Process(ctx, b.Key, b.Prompt, p)
	called := p.Calls()[b.Key] > 0
	n.count(func(c *WorkerCounts) {
		switch {
		case called && ack:
			c.Executed++
		case called:
			c.Failed++
		case ack:
			c.Replayed++
		default:
			c.InProgress++
		}
	})
	if called {
		n.mu.Lock()
		n.calls[b.Key]++
		n.mu.Unlock()
	}
	return ack
}

func (n *naive) count(f func(*WorkerCounts)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(&n.counts)
}

func (n *naive) results() (map[string]int, WorkerCounts) {
	n.mu.Lock()
	defer n.mu.Unlock()
	calls := make(map[string]int, len(n.calls))
	for k, v := range n.calls {
		calls[k] = v
	}
	return calls, n.counts
}
