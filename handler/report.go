package handler

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
)

// respond builds Lambda's partial batch response, in input order, and
// reports the batch. Only a record whose result says so is acknowledged:
// one without an outcome is a failure, and so, on a FIFO queue, is every
// record after a failure.
func (b *batch) respond() (events.SQSEventResponse, error) {
	for i := range b.slots {
		if r := &b.slots[i].res; !r.acked() && r.err == nil {
			r.op, r.err = "run", ErrNoOutcome
		}
	}
	if b.fifo {
		b.blockAfterFailures()
	}
	var resp events.SQSEventResponse
	seen := make(map[string]bool)
	var noID error
	for i := range b.slots {
		s := &b.slots[i]
		if s.res.acked() {
			continue
		}
		b.reportFailure(s)
		id := s.msg.MessageId
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
		b.o.logger.ErrorContext(b.ctx, noID.Error())
		return events.SQSEventResponse{}, noID
	}
	return resp, nil
}

// blockAfterFailures fails the records after a failure that succeeded
// anyway (in another message group, while the failure was under way), so
// no record after a failed one is acknowledged: in the batch by default,
// in the failed record's group with WithFIFOGroupIsolation. Their results
// are stored, so their redelivery replays them.
func (b *batch) blockAfterFailures() {
	failedGroups := make(map[string]bool)
	batchFailed := false
	for i := range b.slots {
		s := &b.slots[i]
		g := s.msg.Attributes[groupAttribute]
		if !s.res.acked() {
			batchFailed, failedGroups[g] = true, true
			continue
		}
		if failedGroups[g] || (batchFailed && !b.o.fifoGroupOnly) {
			s.res.op, s.res.err = "run", ErrFIFOBlocked
		}
	}
}

// reportFailure logs a record reported as a batch item failure and tells
// the failure hook, recovering its panic.
func (b *batch) reportFailure(s *slot) {
	err := &RecordError{MessageID: s.msg.MessageId, Key: s.key, Op: s.res.op, Err: s.res.err}
	level, attrs := slog.LevelWarn, []slog.Attr{slog.String("message_id", s.msg.MessageId), slog.String("key", string(s.key))}
	if errors.Is(s.res.err, ErrInProgress) {
		level, attrs = slog.LevelInfo, append(attrs, slog.Time("lease_until", s.res.LeaseUntil))
	}
	b.o.logger.LogAttrs(b.ctx, level, "idemq: record comes back", append(attrs, slog.Any("err", err))...)
	if hook := b.o.onFailure; hook != nil {
		defer func() {
			if p := recover(); p != nil {
				b.o.logger.ErrorContext(b.ctx, "idemq: panic in failure hook", "message_id", s.msg.MessageId, "panic", fmt.Sprint(p))
			}
		}()
		hook(b.ctx, *s.msg, err)
	}
}
