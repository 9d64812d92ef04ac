package stream_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/handler/stream/streamtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// retryRun is one shard drained with some records' first calls failing,
// under a policy: idemq's (after a failure, the records of other
// partition keys go on) or stopping the whole batch at its first failure
// (no record starts after it; the ones under way finish).
type retryRun struct {
	stop     bool
	callTime time.Duration
	fails    map[string]bool // keys whose first call fails

	mu          sync.Mutex
	invocation  int
	calls       int       // billed calls
	retryCalls  int       // billed calls in invocations after the first: results that waited for a retry
	refused     int       // failed calls
	done        time.Time // the drain's start
	resultDelay time.Duration
}

type stopKey struct{}

// stopped is an invocation's stop flag (the stop policy).
type stopped struct {
	mu sync.Mutex
	on bool
}

func (u *retryRun) fn(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	key := handlertest.BodyField("idempotency_key")(msg)
	st, _ := ctx.Value(stopKey{}).(*stopped)
	if u.stop {
		if st == nil {
			return nil, errors.New("no stop flag in the context")
		}
		st.mu.Lock()
		on := st.on
		st.mu.Unlock()
		if on {
			return nil, errors.New("the batch stopped at its first failure")
		}
	}
	time.Sleep(u.callTime)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fails[key] {
		delete(u.fails, key)
		u.refused++
		if st != nil {
			st.mu.Lock()
			st.on = true
			st.mu.Unlock()
		}
		return nil, errors.New("the provider said no")
	}
	u.calls++
	if u.invocation > 1 {
		u.retryCalls++
	}
	u.resultDelay += time.Since(u.done)
	return []byte("done"), nil
}

func (u *retryRun) invoke(h func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error)) func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error) {
	return func(ctx context.Context, e events.KinesisEvent) (events.KinesisEventResponse, error) {
		u.mu.Lock()
		u.invocation++
		u.mu.Unlock()
		return h(context.WithValue(ctx, stopKey{}, &stopped{}), e)
	}
}

// BenchmarkRetryOtherKeysGoOn measures what running the other partition
// keys' records after a failure saves on the retry, against stopping the
// whole batch at its first failure: one batch of 100 records over 10
// partition keys, 4 at once, each call 1 ms, the first call of 1 or 4
// random records failing. Per drain: billed calls made on the retries
// (the retries' own work: results that waited for one), the
// invocations, and the mean time from the
// drain's start to a record's result. Every record's call is billed once
// under both (the drain checks it).
//
//	go test -run '^$' -bench RetryOtherKeysGoOn -benchtime 60x -count 3 ./handler/stream
func BenchmarkRetryOtherKeysGoOn(b *testing.B) {
	for _, failing := range []int{1, 4} {
		for _, stop := range []bool{false, true} {
			name := fmt.Sprintf("failing=%d/policy=other-keys-go-on", failing)
			if stop {
				name = fmt.Sprintf("failing=%d/policy=stop-at-first-failure", failing)
			}
			b.Run(name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				var retryCalls, invocations, calls int
				var delay time.Duration
				for b.Loop() {
					u := drainWithFailures(b, r, stop, failing)
					retryCalls += u.retryCalls
					invocations += u.invocation
					calls += u.calls
					delay += u.resultDelay
				}
				n := float64(b.N)
				b.ReportMetric(float64(retryCalls)/n, "retry-calls/op")
				b.ReportMetric(float64(invocations)/n, "invocations/op")
				b.ReportMetric(float64(delay.Milliseconds())/float64(calls), "ms-to-result")
			})
		}
	}
}

func drainWithFailures(b *testing.B, r *rand.Rand, stop bool, failing int) *retryRun {
	b.Helper()
	const records, partitions = 100, 10
	u := &retryRun{stop: stop, callTime: time.Millisecond, fails: map[string]bool{}}
	var shard streamtest.Shard
	for i := range records {
		shard.Put(fmt.Sprintf("p%d", i%partitions), fmt.Appendf(nil, `{"idempotency_key":"k%d"}`, i))
	}
	for len(u.fails) < failing {
		u.fails[fmt.Sprintf("k%d", r.IntN(records))] = true
	}
	store, err := memstore.New()
	if err != nil {
		b.Fatal(err)
	}
	h, err := handler.New(store, u.fn, handler.WithRequest(request.Identity{Namespace: "bench"}),
		handler.WithConcurrency(4), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	u.done = time.Now()
	res, err := streamtest.Drain(b.Context(), &shard, u.invoke(stream.New(h).Kinesis), streamtest.Mapping{BatchSize: records, MaximumRetryAttempts: 10})
	if err != nil || len(res.OnFailure) > 0 || u.calls != records {
		b.Fatalf("drain: %v, %+v; %d calls, want %d", err, res, u.calls, records)
	}
	return u
}
