package idem_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/leasectx"
)

// extendCounter is a store that tells each extension of a lease.
type extendCounter struct {
	idem.Store
	extended chan idem.Extension
}

func (e *extendCounter) Extend(ctx context.Context, x idem.Extension) error {
	err := e.Store.Extend(ctx, x)
	if err == nil {
		select {
		case e.extended <- x:
		default:
		}
	}
	return err
}

// Under a context carrying a default lease, a claim takes that lease,
// not one made from the context's far deadline, and a heartbeat renews
// it while the work runs: work longer than the lease keeps its key and
// completes.
func TestContextDefaultLease(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	store := &extendCounter{Store: s.store, extended: make(chan idem.Extension, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	const lease = 50 * time.Millisecond
	ctx = leasectx.WithDefaultLease(ctx, lease, 10*time.Millisecond)
	r, err := idem.Do(ctx, store, "k#beat", "", func(context.Context) ([]byte, error) {
		rec, _ := idemtest.MustGet(t, s.store, "k#beat")
		if want := s.Now().Add(lease + idem.DefaultClockSkew); !rec.LeaseUntil.Equal(want) {
			t.Errorf("claimed until %s, want the context's lease: %s", rec.LeaseUntil, want)
		}
		// Three extensions, each a whole lease from its beat: the key is
		// held past three leases of wall time.
		for range 3 {
			s.advance(lease)
			x := <-store.extended
			for !x.LeaseUntil.Equal(s.Now().Add(lease + idem.DefaultClockSkew)) { // an extension of before the advance
				x = <-store.extended
			}
		}
		return []byte("done"), nil
	}, func(c *idem.Config) { c.Clock = s })
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("%+v, %v; want Executed", r, err)
	}
}

// A lease the caller set wins over the context's, with the caller's
// heartbeat (none here); the caller's heartbeat alone is kept under the
// context's lease.
func TestContextDefaultLeaseYieldsToTheConfig(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	ctx := leasectx.WithDefaultLease(context.Background(), time.Minute, 20*time.Second)
	var mu sync.Mutex
	var until time.Time
	_, err := s.do(ctx, "k#set", "", func(context.Context) ([]byte, error) {
		rec, _ := idemtest.MustGet(t, s.store, "k#set")
		mu.Lock()
		until = rec.LeaseUntil
		mu.Unlock()
		return nil, nil
	}, idem.WithLease(5*time.Minute))
	if err != nil || !until.Equal(s.Now().Add(5*time.Minute+idem.DefaultClockSkew)) {
		t.Errorf("claimed until %s, %v; want the configured 5m", until, err)
	}
}

func TestContextDefaultLeasePanicsOnALeaseItCannotKeep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lease, beat time.Duration }{
		{0, time.Second}, {-time.Minute, time.Second}, {time.Minute, 0}, {time.Minute, 31 * time.Second},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("lease %s, heartbeat %s: no panic", tc.lease, tc.beat)
				}
			}()
			leasectx.WithDefaultLease(context.Background(), tc.lease, tc.beat)
		}()
	}
}
