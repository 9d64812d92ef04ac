package streams

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler/stream"
)

// faults plays the function's own failures around the stream handler,
// and counts what the invocations did.
type faults struct {
	cfg Config

	mu           sync.Mutex
	r            *rand.Rand
	invocations  int
	errors       int // failed before the work: the whole batch back
	crashes      int // the answer lost after the work
	bisections   int // failed invocations of more than one record, split by the mapping
	itemFailures int // answers naming a record to resume from
}

var (
	errBefore = errors.New("streams: the function failed before its work")
	errCrash  = errors.New("streams: the function crashed after its work, before it answered")
)

// wrap returns h with the faults: an invocation fails before it runs h,
// or runs h and loses its answer, each for the configured share.
func wrap[E, Resp any](f *faults, h func(context.Context, E) (Resp, error), size func(E) int, reported func(Resp) bool) func(context.Context, E) (Resp, error) {
	return func(ctx context.Context, e E) (Resp, error) {
		var zero Resp
		f.mu.Lock()
		f.invocations++
		before, crash := f.r.Float64() < f.cfg.FunctionErrors, f.r.Float64() < f.cfg.CrashAfter
		if before || crash {
			f.countFailure(size(e))
		}
		if before {
			f.errors++
			f.mu.Unlock()
			return zero, errBefore
		}
		f.mu.Unlock()
		resp, err := h(ctx, e)
		f.mu.Lock()
		defer f.mu.Unlock()
		if crash {
			f.crashes++
			return zero, errCrash
		}
		if err == nil && reported(resp) {
			f.itemFailures++
		}
		return resp, err
	}
}

// countFailure counts a failed invocation of n records as a bisection
// when the mapping splits it.
func (f *faults) countFailure(n int) {
	if f.cfg.Mapping.BisectBatchOnFunctionError && n > 1 {
		f.bisections++
	}
}

// kinesisFaulty and tableFaulty are the stream handlers with the
// function's faults.
func kinesisFaulty(s *stream.Handlers, f *faults) func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error) {
	return wrap(f, s.Kinesis, func(e events.KinesisEvent) int { return len(e.Records) },
		func(r events.KinesisEventResponse) bool { return len(r.BatchItemFailures) > 0 })
}

func tableFaulty(s *stream.Handlers, f *faults) func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	return wrap(f, s.DynamoDB, func(e events.DynamoDBEvent) int { return len(e.Records) },
		func(r events.DynamoDBEventResponse) bool { return len(r.BatchItemFailures) > 0 })
}
