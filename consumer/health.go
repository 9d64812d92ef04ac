package consumer

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Stats are a consumer's counts since Start.
type Stats struct {
	// Received is the messages received; Batches the batches run.
	Received, Batches int64
	// InFlight is the messages received whose batch has not ended.
	InFlight int64
	// Acknowledged is the messages the handler's responses acknowledged;
	// Deleted those deleted; NotDeleted those acknowledged but left to come
	// back because their delete failed.
	Acknowledged, Deleted, NotDeleted int64
	// Extensions is the visibility extensions that succeeded (one per
	// batch and round).
	Extensions int64
	// GivenBack is the messages received while stopping and made visible
	// again at once, never started.
	GivenBack int64
	// ReceiveErrors, DeleteErrors and VisibilityErrors count the failed
	// calls (and failed entries of batch calls) of each kind.
	ReceiveErrors, DeleteErrors, VisibilityErrors int64
	// FailingReceives is the receives failed in a row, now; LastReceive
	// when a receive last succeeded.
	FailingReceives int64
	LastReceive     time.Time
}

type stats struct {
	received, batches, inFlight       atomic.Int64
	acknowledged, deleted, notDeleted atomic.Int64
	extensions, givenBack             atomic.Int64
	receiveErrors, deleteErrors       atomic.Int64
	visibilityErrors, failingReceives atomic.Int64
	mu                                sync.Mutex
	lastReceive                       time.Time
}

func (s *stats) receiveFailed() int64 {
	s.receiveErrors.Add(1)
	return s.failingReceives.Add(1)
}

func (s *stats) receivedBatch(n int) {
	s.failingReceives.Store(0)
	s.received.Add(int64(n))
	s.inFlight.Add(int64(n))
	s.mu.Lock()
	s.lastReceive = time.Now()
	s.mu.Unlock()
}

func (s *stats) batchDone(messages, acked, deleted, notDeleted int) {
	s.batches.Add(1)
	s.inFlight.Add(-int64(messages))
	s.acknowledged.Add(int64(acked))
	s.deleted.Add(int64(deleted))
	s.notDeleted.Add(int64(notDeleted))
}

// Stats returns the consumer's counts so far.
func (c *Consumer) Stats() Stats {
	s := &c.stats
	s.mu.Lock()
	last := s.lastReceive
	s.mu.Unlock()
	return Stats{
		Received: s.received.Load(), Batches: s.batches.Load(), InFlight: s.inFlight.Load(),
		Acknowledged: s.acknowledged.Load(), Deleted: s.deleted.Load(), NotDeleted: s.notDeleted.Load(),
		Extensions: s.extensions.Load(), GivenBack: s.givenBack.Load(),
		ReceiveErrors: s.receiveErrors.Load(), DeleteErrors: s.deleteErrors.Load(), VisibilityErrors: s.visibilityErrors.Load(),
		FailingReceives: s.failingReceives.Load(), LastReceive: last,
	}
}

// Healthy reports nil while the consumer runs and receives: ErrNotStarted
// before Start, ErrStopped once it stops receiving, and an error saying
// so when Config.UnhealthyAfter receives or more in a row have failed.
func (c *Consumer) Healthy() error {
	c.mu.Lock()
	started, stopping := c.started, c.stopping
	c.mu.Unlock()
	switch {
	case !started:
		return ErrNotStarted
	case stopping:
		return ErrStopped
	}
	if n := c.stats.failingReceives.Load(); n >= int64(c.cfg.UnhealthyAfter) {
		return fmt.Errorf("consumer: %d receives in a row failed", n)
	}
	return nil
}

// HealthHandler returns an HTTP handler answering 200 "ok" while Healthy
// reports nil, and 503 with the error otherwise: a container's health
// check or a Kubernetes probe.
func (c *Consumer) HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := c.Healthy(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, err.Error())
			return
		}
		fmt.Fprintln(w, "ok")
	})
}
