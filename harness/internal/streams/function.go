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
	died         int // died during a provider call
	bisections   int // failed invocations of more than one record, split by the mapping
	itemFailures int // answers naming a record to resume from
	inProgress   int // records reported because their key was in progress

	zombies sync.WaitGroup // the handlers of invocations that died, finishing
}

var (
	errBefore = errors.New("streams: the function failed before its work")
	errCrash  = errors.New("streams: the function crashed after its work, before it answered")
	errDied   = errors.New("streams: the function died during a provider call")
)

// wrap returns h with the faults: an invocation fails before it runs h,
// dies at its first provider call, or runs h and loses its answer, each
// for the configured share.
func wrap[E, Resp any](f *faults, h func(context.Context, E) (Resp, error), size func(E) int, reported func(Resp) bool) func(context.Context, E) (Resp, error) {
	return func(ctx context.Context, e E) (Resp, error) {
		var zero Resp
		f.mu.Lock()
		f.invocations++
		before, dies, crash := f.r.Float64() < f.cfg.FunctionErrors, f.r.Float64() < f.cfg.CrashDuring, f.r.Float64() < f.cfg.CrashAfter
		if before {
			f.errors++
			f.countFailure(size(e))
			f.mu.Unlock()
			return zero, errBefore
		}
		f.mu.Unlock()
		var resp Resp
		var err error
		if dies {
			var died bool
			if resp, died, err = runDying(f, ctx, e, h); died {
				f.mu.Lock()
				defer f.mu.Unlock()
				f.died++
				f.countFailure(size(e))
				return zero, errDied
			}
		} else {
			resp, err = h(ctx, e)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if crash {
			f.crashes++
			f.countFailure(size(e))
			return zero, errCrash
		}
		if err == nil && reported(resp) {
			f.itemFailures++
		}
		return resp, err
	}
}

// runDying runs h in an invocation that dies at its first provider call,
// and returns when h answers or the invocation died (died): then h goes
// on, its context cancelled, in a zombie f waits for at the end.
func runDying[E, Resp any](f *faults, ctx context.Context, e E, h func(context.Context, E) (Resp, error)) (resp Resp, died bool, err error) {
	ctx, d := withDying(ctx)
	type answer struct {
		resp Resp
		err  error
	}
	done := make(chan answer, 1)
	f.zombies.Add(1)
	go func() {
		defer f.zombies.Done()
		defer d.cancel()
		r, err := h(ctx, e)
		done <- answer{r, err}
	}()
	select {
	case a := <-done:
		select {
		case <-d.died: // it died, then h answered: the answer is lost
			return resp, true, nil
		default: // no provider call: it did not die
			return a.resp, false, a.err
		}
	case <-d.died:
		return resp, true, nil
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
