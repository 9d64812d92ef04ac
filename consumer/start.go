package consumer

import (
	"context"
)

// Start learns what it needs of the queue (its ARN and visibility timeout,
// unless configured; retried a few times) and starts receiving in the
// background. It returns ErrStarted if called twice, and an error wrapping
// ErrQueue if the queue cannot be read.
//
// When ctx ends the consumer shuts down as Run does: it stops receiving,
// lets running work finish for the grace period, then cancels it. The
// values of ctx are kept in the contexts handed to the handler; its
// cancellation is not.
func (c *Consumer) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return ErrStarted
	}
	c.started = true
	c.mu.Unlock()
	if err := c.readQueue(ctx); err != nil {
		c.mu.Lock()
		c.stopping = true
		c.mu.Unlock()
		close(c.done)
		return err
	}
	recvCtx, stopRecv := context.WithCancel(context.WithoutCancel(ctx))
	workCtx, cancelWork := context.WithCancelCause(context.WithoutCancel(ctx))
	c.mu.Lock()
	c.stopRecv, c.workCtx, c.cancelWork = stopRecv, workCtx, cancelWork
	if c.stopping { // Stop came while the queue was read: receive nothing
		stopRecv()
	}
	c.mu.Unlock()
	go func() {
		c.receiveLoop(recvCtx)
		c.batches.Wait()
		stopRecv()
		cancelWork(nil)
		close(c.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			c.shutdown()
		case <-c.done:
		}
	}()
	c.cfg.Logger.InfoContext(ctx, "idemq consumer: started", "queue_url", c.queueURL, "queue_arn", c.arn,
		"visibility_timeout", c.cfg.VisibilityTimeout.String(), "max_run_time", c.cfg.MaxRunTime.String(),
		"default_lease", c.cfg.Lease.String(), "heartbeat", c.cfg.Heartbeat.String(),
		"batch_size", c.cfg.BatchSize, "max_batches", c.cfg.MaxBatches)
	return nil
}

// Run starts the consumer and blocks until ctx ends (a SIGTERM, with
// signal.NotifyContext), then shuts it down: it stops receiving, lets the
// running work finish for Config.GracePeriod, cancels what is left, and
// waits 5 s more for it to release its claims. Messages
// whose work did not finish are not deleted: they come back when their
// visibility timeout ends. It returns Start's error, or nil.
func (c *Consumer) Run(ctx context.Context) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	<-c.done
	return nil
}

// shutdown is Run's way down: Stop for the grace period, then
// StopAndCancel.
func (c *Consumer) shutdown() {
	c.cfg.Logger.Info("idemq consumer: stopping; running work has the grace period to finish", "grace_period", c.cfg.GracePeriod.String())
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.GracePeriod)
	err := c.Stop(ctx)
	cancel()
	if err == nil {
		return
	}
	c.cfg.Logger.Warn("idemq consumer: grace period over; cancelling the running work (its messages come back)")
	ctx, cancel = context.WithTimeout(context.Background(), defaultCancelWait)
	defer cancel()
	if err := c.StopAndCancel(ctx); err != nil {
		c.cfg.Logger.Error("idemq consumer: work still running after cancel; its messages come back after their visibility timeout", "err", err.Error())
	}
}
