package consumer

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/idemq/idemq/internal/leasectx"
)

// process runs one received batch: it hands the event to the handler
// under a context that ends Config.MaxRunTime after the receive and
// carries the default lease (Config.Lease, Config.Heartbeat), keeps the
// messages hidden while the handler runs, then deletes the ones the
// response acknowledges.
func (c *Consumer) process(msgs []types.Message) {
	received := time.Now()
	event := c.event(msgs)
	ctx, cancel := context.WithDeadline(c.workCtx, received.Add(c.cfg.MaxRunTime))
	if c.cfg.Lease > 0 {
		ctx = leasectx.WithDefaultLease(ctx, c.cfg.Lease, c.cfg.Heartbeat)
	}
	ext := c.keepHidden(msgs, received)
	ctx = context.WithValue(ctx, batchContextKey{}, ext)
	resp, err := c.invoke(ctx, event)
	cancel()
	extensions := ext.stop()
	acked, why := acknowledged(event, resp, err)
	if why != "" {
		c.cfg.Logger.Error("idemq consumer: no message of the batch is acknowledged; they come back", "reason", why, "messages", len(msgs))
	}
	deleted, notDeleted := c.delete(acked)
	c.stats.batchDone(len(msgs), len(acked), deleted, notDeleted)
	level := c.cfg.Logger.Debug
	if notDeleted > 0 {
		level = c.cfg.Logger.Warn
	}
	level("idemq consumer: batch", "messages", len(msgs), "acknowledged", len(acked), "deleted", deleted,
		"not_deleted", notDeleted, "extensions", extensions, "duration_ms", time.Since(received).Milliseconds())
}

// invoke calls the handler, turning a panic that escapes it into an error
// (nothing of the batch is then acknowledged).
func (c *Consumer) invoke(ctx context.Context, event events.SQSEvent) (resp events.SQSEventResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.cfg.Logger.Error("idemq consumer: panic in handler", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("consumer: panic in handler: %v", p)
		}
	}()
	return c.h(ctx, event)
}

// acknowledged returns the records a handler's response acknowledges, as
// Lambda's event source mapping reads it: every record not listed as a
// batch item failure; none when the handler returned an error, or when a
// failure names no record of the batch (an empty or unknown item
// identifier), with the reason.
func acknowledged(event events.SQSEvent, resp events.SQSEventResponse, err error) ([]events.SQSMessage, string) {
	if err != nil {
		return nil, "handler error: " + err.Error()
	}
	ids := make(map[string]bool, len(event.Records))
	for _, r := range event.Records {
		ids[r.MessageId] = true
	}
	failed := make(map[string]bool, len(resp.BatchItemFailures))
	for _, f := range resp.BatchItemFailures {
		if !ids[f.ItemIdentifier] {
			return nil, fmt.Sprintf("batch item failure %q names no message of the batch", f.ItemIdentifier)
		}
		failed[f.ItemIdentifier] = true
	}
	var acked []events.SQSMessage
	for _, r := range event.Records {
		if !failed[r.MessageId] {
			acked = append(acked, r)
		}
	}
	return acked, ""
}
