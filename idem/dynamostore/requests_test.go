package dynamostore_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

// A new key costs a claim and a completion; a duplicate costs the failed
// claim alone, which brings back the stored result (ALL_OLD), with no read.
func TestRequestsPerDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	work := func(context.Context) ([]byte, error) { return []byte("summary"), nil }

	r, err := idem.Do(ctx, b.store, "req#new", "fp", work)
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("first delivery: %+v, %v", r, err)
	}
	wantCalls(t, "new key", b.api.take(), map[string]int{"PutItem": 1, "UpdateItem": 1})

	r, err = idem.Do(ctx, b.store, "req#new", "fp", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a duplicate")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "summary" {
		t.Fatalf("duplicate: %+v, %v; want the stored result replayed", r, err)
	}
	wantCalls(t, "duplicate", b.api.take(), map[string]int{"PutItem": 1})

	// A duplicate while the first is at work: one request, and the holder's
	// lease comes back with it.
	b.mustClaim(t, "req#busy")
	b.api.take()
	r, err = idem.Do(ctx, b.store, "req#busy", "", work, func(c *idem.Config) { c.Clock = idem.ClockFunc(func() time.Time { return b.now }) })
	// When this worker may take the key over: the lease's end plus the
	// clock-skew bound.
	if want := b.now.Add(time.Minute + idem.DefaultClockSkew); err != nil || r.Outcome != idem.InProgress || !r.LeaseUntil.Equal(want) {
		t.Fatalf("duplicate in progress: %+v, %v; want InProgress until %s", r, err, want)
	}
	wantCalls(t, "duplicate in progress", b.api.take(), map[string]int{"PutItem": 1})
}

func wantCalls(t *testing.T, what string, got, want map[string]int) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Errorf("%s: requests %v, want %v", what, got, want)
	}
}
