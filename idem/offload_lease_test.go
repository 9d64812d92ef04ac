package idem_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// countExtends counts the extensions a store is sent.
type countExtends struct {
	*memstore.Store
	n atomic.Int64
}

func (s *countExtends) Extend(ctx context.Context, e idem.Extension) error {
	s.n.Add(1)
	return s.Store.Extend(ctx, e)
}

// slowPut is a Blobs whose Put waits, once started, until released.
type slowPut struct {
	*memBlobs
	started, release chan struct{}
}

func (b *slowPut) Put(ctx context.Context, name string, data []byte) error {
	close(b.started)
	<-b.release
	return b.memBlobs.Put(ctx, name, data)
}

// The heartbeat goes on while the result is put in the blob store: an
// upload longer than what the lease has left must not let another worker
// take the key over and run the work again.
func TestHeartbeatCoversTheOffload(t *testing.T) {
	t.Parallel()
	store := &countExtends{Store: must(memstore.New())}
	blobs := &slowPut{memBlobs: newMemBlobs(), started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		r, err := idem.Do(context.Background(), store, "k#1", "", answer(string(hexResult(20<<10))),
			idem.WithBlobs(blobs), idem.WithLease(time.Minute), idem.WithHeartbeat(time.Millisecond))
		if err == nil && r.Outcome != idem.Executed {
			t.Errorf("Do = %v; want Executed", r.Outcome)
		}
		done <- err
	}()
	<-blobs.started
	before := store.n.Load()
	deadline := time.After(10 * time.Second)
	for store.n.Load() <= before+1 {
		select {
		case <-deadline:
			close(blobs.release)
			t.Fatalf("%d extensions while the put ran for 10 s under a 1 ms heartbeat: the lease can pass during the upload", store.n.Load()-before)
		case <-time.After(time.Millisecond):
		}
	}
	close(blobs.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Stopped before the completion: none after Do returned.
	after := store.n.Load()
	time.Sleep(20 * time.Millisecond)
	if n := store.n.Load(); n != after {
		t.Errorf("%d extensions after Do returned: the heartbeat outlived the call", n-after)
	}
}
