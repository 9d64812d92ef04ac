package handler

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
)

// respond builds Lambda's partial batch response, in input order, and
// reports the batch. Only a record whose fate says so is acknowledged: one
// without an outcome is a failure, and so, on a FIFO queue, is every
// record after a failure (the FIFO gate, applied again now that every
// record's fate is known).
func (b *batch) respond() (events.SQSEventResponse, error) {
	for i := range b.records {
		rec := &b.records[i]
		if !rec.fate.acked() {
			b.gate.fail(i, rec.group())
		} else if b.gate.blocks(i, rec.group()) {
			// It succeeded anyway (in another message group, while the
			// failure was under way): its result is stored, so its
			// redelivery replays it.
			b.assign(i, rec.fate.blockedByFIFO())
		}
	}
	var resp events.SQSEventResponse
	seen := make(map[string]bool)
	var noID error
	for i := range b.records {
		rec := &b.records[i]
		if rec.fate.acked() {
			continue
		}
		b.reportFailure(rec)
		id := rec.msg.MessageId
		if id == "" {
			noID = fmt.Errorf("handler: record %d failed and has no message id; failing the whole batch", i)
			continue
		}
		if !seen[id] {
			seen[id] = true
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
	}
	b.summarize(len(resp.BatchItemFailures))
	if noID != nil {
		b.settings.logger.ErrorContext(b.ctx, noID.Error())
		return events.SQSEventResponse{}, noID
	}
	return resp, nil
}

// reportFailure logs a record reported as a batch item failure and tells
// the failure hook, recovering its panic.
func (b *batch) reportFailure(rec *record) {
	op, cause := rec.fate.cause()
	err := &RecordError{MessageID: rec.msg.MessageId, Key: rec.key, Op: op, Err: cause}
	level, attrs := slog.LevelWarn, []slog.Attr{slog.String("message_id", rec.msg.MessageId), slog.String("key", string(rec.key))}
	if op != "" {
		attrs = append(attrs, slog.String("op", string(op)))
	}
	if errors.Is(cause, ErrInProgress) {
		level, attrs = slog.LevelInfo, append(attrs, slog.Time("lease_until", rec.fate.leaseUntil))
	}
	b.settings.logger.LogAttrs(b.ctx, level, "idemq: record comes back", append(attrs, slog.Any("err", err))...)
	if hook := b.settings.onFailure; hook != nil {
		defer func() {
			if p := recover(); p != nil {
				b.settings.logger.ErrorContext(b.ctx, "idemq: panic in failure hook", "message_id", rec.msg.MessageId, "panic", fmt.Sprint(p))
			}
		}()
		hook(b.ctx, *rec.msg, err)
	}
}
