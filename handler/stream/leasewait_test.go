package stream_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
)

// A stream's batch is sent again at once: a key whose holder crashed would
// spend a retry attempt on every resend until its lease ends. So within
// an invocation's time the record waits for the lease to pass and claims
// the key then; a lease that outlasts the invocation (here, its deadline
// guard: a reserve of half the 2 s left) is reported in progress, after
// the wait, as before.
func TestInProgressKeyWaitsForItsLease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		lease    time.Duration // the holder's, from now
		deadline time.Duration // the invocation's, from now
		want     []string      // batch item failures
		runs     int           // of b1
	}{
		{"a lease that ends within the invocation", 300 * time.Millisecond, 20 * time.Second, nil, 1},
		{"a lease that outlasts it", time.Hour, 2 * time.Second, []string{"102"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWork()
			s, store := newHandlers(t, w)
			key, err := idem.ClientKey(namespace, "b1")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := handlertest.Hold(t.Context(), store, key, time.Now().Add(tc.lease)); err != nil {
				t.Fatal(err)
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
