package consumer

import (
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
