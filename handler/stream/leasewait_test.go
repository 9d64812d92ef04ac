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
