package stream_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream/streamtest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
)

// A stream's batch is sent again at once: a key whose holder crashed would
// spend a retry attempt on every resend until its lease ends. So within
// an invocation's time the record waits for the key, looking again by
// doubling steps: a crashed holder's key is taken over once its lease has
// passed, a live holder's result replayed soon after it completes; a lease
// that outlasts the invocation (here, its deadline guard: a reserve of
// half the 2 s left) is reported in progress, after the wait, as before.
func TestInProgressKeyWaitsForItsLease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		lease    time.Duration // the holder's, from now
		done     time.Duration // when the holder completes the key, from now; 0: never
		deadline time.Duration // the invocation's, from now
		want     []string      // batch item failures
		runs     int           // of b1
	}{
		{"a crashed holder's lease that ends within the invocation", 300 * time.Millisecond, 0, 20 * time.Second, nil, 1},
		{"a live holder that completes within it", time.Hour, 300 * time.Millisecond, 4 * time.Second, nil, 0},
		{"a lease that outlasts it", time.Hour, 0, 2 * time.Second, []string{"102"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWork()
			s, store := newHandlers(t, w)
			key, err := idem.ClientKey(namespace, "b1")
			if err != nil {
				t.Fatal(err)
			}
			owner, err := handlertest.Hold(t.Context(), store, key, time.Now().Add(tc.lease))
			if err != nil {
				t.Fatal(err)
			}
			if tc.done > 0 {
				done := time.AfterFunc(tc.done, func() {
					if err := store.Complete(context.Background(), idem.Completion{Key: key, Owner: owner, Result: []byte("theirs"), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
						t.Error(err)
					}
				})
				defer done.Stop()
			}
			ctx, cancel := context.WithTimeout(t.Context(), tc.deadline)
			defer cancel()
			resp, err := s.Kinesis(ctx, kinesisEvent(shard...))
			if err != nil {
				t.Fatal(err)
			}
			if got := failures(resp); !slices.Equal(got, tc.want) {
				t.Errorf("batch item failures %v; want %v", got, tc.want)
			}
			if n := w.count("b1"); n != tc.runs {
				t.Errorf("b1 ran %d times; want %d", n, tc.runs)
			}
			if n := w.count("c1"); n != 1 {
				t.Errorf("c1 (another partition key) ran %d times; want 1", n)
			}
		})
	}
}

// queue.Stream.CheckLease's count of retries is what the handler needs: a
// record whose key a crashed invocation holds, drained as Lambda's
// mapping does with a function timeout of 1 s (each invocation waits for
// the key until its deadline guard, half a second in), runs once with
// the retries CheckLease asks for, and is given up unrun with fewer.
func TestCheckLeaseRetriesOutlastACrashedHolder(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	held := 1200 * time.Millisecond // the crashed holder's lease, from now
	// The lease as CheckLease takes it: passed for a claim ClockSkew
	// after its end (and written ClockSkew ahead, as a worker's is).
	lease := held + 2*idem.DefaultClockSkew
	need := 0
	for n := 1; n < 100 && need == 0; n++ {
		if (queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: n}).CheckLease(lease, timeout) == nil {
			need = n
		}
	}
	for _, tc := range []struct {
		retries int
		runs    int
	}{{need, 1}, {1, 0}} {
		t.Run(fmt.Sprintf("%d retries", tc.retries), func(t *testing.T) {
			t.Parallel()
			w := newWork()
			s, store := newHandlers(t, w)
			key, err := idem.ClientKey(namespace, "k")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := handlertest.Hold(t.Context(), store, key, time.Now().Add(held)); err != nil {
				t.Fatal(err)
			}
			var shard streamtest.Shard
			shard.Put("pk", []byte(`{"idempotency_key":"k"}`))
			res, err := streamtest.Drain(t.Context(), &shard, s.Kinesis, streamtest.Mapping{MaximumRetryAttempts: tc.retries, FunctionTimeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			if n := w.count("k"); n != tc.runs {
				t.Errorf("ran %d times after %d invocations; want %d", n, res.Invocations, tc.runs)
			}
			if given := len(res.OnFailure) > 0; given != (tc.runs == 0) {
				t.Errorf("given up: %v (%d invocations); want %v", given, res.Invocations, tc.runs == 0)
			}
		})
	}
}
