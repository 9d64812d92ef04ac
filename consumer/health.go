package consumer

import (
	"fmt"
	"net/http"
)

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
