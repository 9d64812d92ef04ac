package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/handler"
)

// goImpl makes the handler of a Go implementation: records in table
// through api, work done by work, concurrency records at once, a local
// cache of cacheEntries keys (0: none); or the error of its wiring.
type goImpl func(api *dynamodb.Client, table string, work handler.Func, concurrency, cacheEntries int) (Handler, error)

// goRunner runs trials in this process. Its clients live as long as it
// does, as they would in a warm container.
type goRunner struct {
	id          string
	impl        goImpl
	concurrency int // 0: the batch size
	counter     *Counter
	clients     clients // the measured worker's, counted
	others      clients // the other worker's, for PrepHold
}

func newGoRunner(id string, impl goImpl, concurrency int, endpoint string) *goRunner {
	c := NewCounter()
	return &goRunner{id: id, impl: impl, concurrency: concurrency, counter: c,
		clients: clients{endpoint: endpoint, counter: c}, others: clients{endpoint: endpoint}}
}

// clients are one worker's DynamoDB clients, one for each number of
// records it runs at once, each keeping that many idle connections
// (newClient), as a user builds the client of a function for its
// concurrency: a runner of a fixed concurrency has one, a whole-batch
// runner one per batch size. Not safe for concurrent use.
type clients struct {
	endpoint      string
	counter       *Counter // nil: not counted
	byConcurrency map[int]*dynamodb.Client
}

// get returns the client for n records at once, made on first use.
func (c *clients) get(n int) *dynamodb.Client {
	if c.byConcurrency == nil {
		c.byConcurrency = make(map[int]*dynamodb.Client)
	}
	if _, ok := c.byConcurrency[n]; !ok {
		c.byConcurrency[n] = newClient(c.endpoint, c.counter, n)
	}
	return c.byConcurrency[n]
}

// FloorRunner returns the raw-SDK floor (floorHandler), plain or fenced,
// at concurrency records at once (0: the batch size).
func FloorRunner(id string, fenced bool, concurrency int, endpoint string) Runner {
	return newGoRunner(id, func(api *dynamodb.Client, table string, work handler.Func, n, _ int) (Handler, error) {
		return floorHandler(api, table, work, n, fenced), nil
	}, concurrency, endpoint)
}

// IdemqRunner returns idemq (idemqHandler) at concurrency records at once
// (0: the batch size).
func IdemqRunner(id string, concurrency int, endpoint string) Runner {
	return newGoRunner(id, idemqHandler, concurrency, endpoint)
}

func (r *goRunner) ID() string { return r.id }

func (r *goRunner) Run(ctx context.Context, t Trial) (Sample, error) {
	n := r.concurrency
	if n == 0 {
		n = t.BatchSize
	}
	cacheEntries := 0
	if t.Cache {
		cacheEntries = max(1000, t.Records())
	}
	var calls atomic.Int64
	h, err := r.impl(r.clients.get(n), t.Table, model(t.Model, &calls), n, cacheEntries)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", r.id, err)
	}
	switch t.Prep {
	case PrepComplete:
		if _, err := runBatches(ctx, h, t.PrepBatches, nil); err != nil {
			return Sample{}, fmt.Errorf("%s: preparation: %w", r.id, err)
		}
	case PrepHold:
		release, err := r.hold(ctx, t)
		if err != nil {
			return Sample{}, fmt.Errorf("%s: preparation: %w", r.id, err)
		}
		defer release()
	}
	r.counter.Take()
	calls.Store(0)
	settle() // clock.go: the same steps as driver.mjs's
	marks := make([]time.Duration, 0, len(t.Batches))
	cpu0, start := processCPU(), time.Now()
	failures, err := runBatches(ctx, h, t.Batches, func() { marks = append(marks, processCPU()-cpu0) })
	wall, cpu := time.Since(start), processCPU()-cpu0
	settle()
	tail := processCPU() - cpu0 - cpu
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", r.id, err)
	}
	u := r.counter.Take()
	return Sample{Records: t.Records(), Wall: wall, CPU: cpu, CPUMarks: marks, BatchRecords: batchRecords(t.Batches),
		CPUTail: tail, Requests: u.Requests, Retries: u.Retries,
		WriteUnits: u.WriteUnits, ReadUnits: u.ReadUnits,
		Failures: failures, Executions: int(calls.Load())}, nil
}

// runBatches hands the batches to h one at a time, each under its own
// invocation deadline, and counts the batch item failures. mark, when not
// nil, is called before each batch.
func runBatches(ctx context.Context, h Handler, batches []events.SQSEvent, mark func()) (int, error) {
	failures := 0
	for _, ev := range batches {
		if mark != nil {
			mark()
		}
		bctx, cancel := context.WithTimeout(ctx, invocationTimeout)
		resp, err := h(bctx, ev)
		cancel()
		if err != nil {
			return failures, err
		}
		failures += len(resp.BatchItemFailures)
	}
	return failures, nil
}

// hold has another worker of the same implementation, with a client of its
// own, claim the keys of the trial's one preparation batch and keep them
// IN_PROGRESS in its work until release is called.
func (r *goRunner) hold(ctx context.Context, t Trial) (release func(), err error) {
	if len(t.PrepBatches) != 1 {
		return nil, fmt.Errorf("bench: PrepHold wants one batch, got %d", len(t.PrepBatches))
	}
	ev := t.PrepBatches[0]
	gate := make(chan struct{})
	var entered atomic.Int64
	work := func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
		entered.Add(1)
		select {
		case <-gate:
			return completion, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	other, err := r.impl(r.others.get(len(ev.Records)), t.Table, work, len(ev.Records), 0)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		_, err := runBatches(ctx, other, []events.SQSEvent{ev}, nil)
		done <- err
	}()
	release = func() { close(gate); <-done }
	deadline := time.Now().Add(time.Minute)
	for entered.Load() < int64(len(ev.Records)) {
		select {
		case err := <-done:
			close(gate)
			return nil, fmt.Errorf("bench: the holding worker ended before holding every key: %v", err)
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			release()
			return nil, fmt.Errorf("bench: the holding worker holds %d of %d keys after a minute", entered.Load(), len(ev.Records))
		}
	}
	return release, nil
}
