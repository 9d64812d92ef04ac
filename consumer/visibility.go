package consumer

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/idemq/idemq/queue"
)

// giveBackTimeout bounds the call that gives back a batch received while
// stopping.
const giveBackTimeout = 5 * time.Second

// extender keeps a running batch's messages hidden.
type extender struct {
	cancel context.CancelFunc
	done   chan struct{}
	count  int // extensions that succeeded; read after done

	// mu is held while an extension is sent; dropped holds the receipt
	// handles no longer to extend (given back by the handler: Backoff).
	mu      sync.Mutex
	dropped map[string]bool
}

// stop ends the extensions, waits for the one under way, and returns how
// many succeeded.
func (e *extender) stop() int {
	e.cancel()
	<-e.done
	return e.count
}

// keepHidden extends the visibility of msgs, received at received, by
// Config.VisibilityTimeout each time half of it is left, until stop is
// called: a message whose work still runs never comes back. A failed
// extension is retried with back-off until the messages would show; if
// they do, another worker may receive one, whose claim then finds the key
// in progress and leaves it (the lease, not the visibility, is what keeps
// the work from running twice).
func (c *Consumer) keepHidden(msgs []types.Message, received time.Time) *extender {
	ctx, cancel := context.WithCancel(context.Background())
	e := &extender{cancel: cancel, done: make(chan struct{}), dropped: map[string]bool{}}
	vis := c.cfg.VisibilityTimeout
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{
			Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: int32(vis.Seconds()),
		}
	}
	go func() {
		defer close(e.done)
		expiry := received.Add(vis) // when the messages show again
		next := expiry.Add(-vis / 2)
		bo := c.newBackoff()
		warned := false
		for len(entries) > 0 {
			if !queue.Sleep(ctx, time.Until(next)) {
				return
			}
			at := time.Now()
			ok := e.extend(ctx, c, &entries)
			if ctx.Err() != nil {
				return
			}
			if ok {
				e.count++
				c.stats.extensions.Add(1)
				bo.Reset()
				expiry, warned = at.Add(vis), false
				next = expiry.Add(-vis / 2)
				continue
			}
			if time.Now().After(expiry) && !warned {
				warned = true
				c.cfg.Logger.Error("idemq consumer: visibility not extended in time: messages whose work still runs may be received again (their claims keep the work from running twice)",
					"messages", len(entries))
			}
			next = time.Now().Add(bo.Wait())
		}
	}()
	return e
}

// extend sends one extension of the entries not dropped, under e.mu, and
// reports whether it succeeded.
func (e *extender) extend(ctx context.Context, c *Consumer, entries *[]types.ChangeMessageVisibilityBatchRequestEntry) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	*entries = slices.DeleteFunc(*entries, func(en types.ChangeMessageVisibilityBatchRequestEntry) bool {
		return e.dropped[aws.ToString(en.ReceiptHandle)]
	})
	if len(*entries) == 0 {
		return true
	}
	var ok bool
	*entries, ok = c.changeVisibility(ctx, *entries)
	return ok
}

// changeVisibility sends one ChangeMessageVisibilityBatch for entries. It
// reports whether every entry succeeded, and returns the entries still
// worth changing: all of them after a failed call, all but those SQS
// refused for good (the sender's fault: a receipt handle it no longer
// takes) after an answered one.
func (c *Consumer) changeVisibility(ctx context.Context, entries []types.ChangeMessageVisibilityBatchRequestEntry) ([]types.ChangeMessageVisibilityBatchRequestEntry, bool) {
	var keep []types.ChangeMessageVisibilityBatchRequestEntry
	ok := true
	for start := 0; start < len(entries); start += 10 {
		chunk := entries[start:min(start+10, len(entries))]
		out, err := c.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(c.queueURL), Entries: chunk}, once)
		if err != nil {
			if ctx.Err() == nil {
				c.stats.visibilityErrors.Add(1)
				c.cfg.Logger.Warn("idemq consumer: visibility extension failed; retrying", "messages", len(chunk), "err", err.Error())
			}
			keep = append(keep, chunk...)
			ok = false
			continue
		}
		refused := make(map[string]bool)
		for _, f := range out.Failed {
			ok = false
			c.stats.visibilityErrors.Add(1)
			c.cfg.Logger.Warn("idemq consumer: visibility extension failed", "entry", aws.ToString(f.Id), "sender_fault", f.SenderFault,
				"code", aws.ToString(f.Code), "err", aws.ToString(f.Message))
			if f.SenderFault {
				refused[aws.ToString(f.Id)] = true
			}
		}
		for _, e := range chunk {
			if !refused[aws.ToString(e.Id)] {
				keep = append(keep, e)
			}
		}
	}
	return keep, ok
}

// giveBack makes messages received while stopping visible at once, so
// another consumer can take them without waiting for their visibility
// timeout. They were never handed to the handler: nothing ran, nothing is
// claimed, and nothing is acknowledged (a give-back costs one receive of
// the message's maxReceiveCount). A give-back that fails is retried with
// back-off for giveBackTimeout, then logged; the messages then come back
// when their visibility timeout ends.
func (c *Consumer) giveBack(msgs []types.Message) {
	ctx, cancel := context.WithTimeout(context.Background(), giveBackTimeout)
	defer cancel()
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}
	}
	bo := c.newBackoff()
	for {
		var ok bool
		if entries, ok = c.changeVisibility(ctx, entries); ok {
			break
		}
		if len(entries) == 0 || !queue.Sleep(ctx, bo.Wait()) {
			c.cfg.Logger.Warn("idemq consumer: could not give back messages received while stopping; they come back after their visibility timeout", "messages", len(msgs))
			return
		}
	}
	c.stats.givenBack.Add(int64(len(msgs)))
	c.cfg.Logger.Info("idemq consumer: gave back messages received while stopping", "messages", len(msgs))
}
