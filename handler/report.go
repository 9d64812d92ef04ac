package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
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
	// A stream's response names where its shard resumes: an error would
	// make Lambda ignore it (and bisect the batch) for no gain.
	resp, err := answer(b.records, b.settings.batchError && !b.stream, b.settings.wholeBatch)
	for i := range b.records {
		if rec := &b.records[i]; !rec.fate.acked() {
			b.reportFailure(rec)
		}
	}
	b.summarize(len(resp.BatchItemFailures))
	if err != nil {
		b.settings.logger.ErrorContext(b.ctx, "idemq: the invocation fails; the whole batch comes back", "err", err)
	}
	return resp, err
}

// answer is what the invocation returns for records whose fates are
// decided: the batch item failures, one per message id of a record not
// acknowledged, in input order; with an error, when Lambda must bring the
// whole batch back:
//
//   - a record not acknowledged has no message id: Lambda could not be
//     told which one failed (the response is then empty);
//   - a record not acknowledged came from a queue in wholeBatch, whose
//     mapping lacks ReportBatchItemFailures: Lambda would ignore the
//     response and delete every message;
//   - with batchError, ErrBatchFailed when the batch is not empty, every
//     message of it is listed (so the error brings back no other), and
//     one record at least failed, not only found its key in progress or
//     was not started: waiting is not failing.
func answer(records []record, batchError bool, wholeBatch map[string]bool) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	listed := make(map[string]bool)
	for i := range records {
		rec := &records[i]
		if rec.fate.acked() {
			continue
		}
		id := rec.msg.MessageId
		if id == "" {
			return events.SQSEventResponse{}, fmt.Errorf("handler: record %d failed and has no message id; failing the whole batch", i)
		}
		if !listed[id] {
			listed[id] = true
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
	}
	for i := range records {
		if rec := &records[i]; !rec.fate.acked() && wholeBatch[rec.msg.EventSourceARN] {
			return resp, fmt.Errorf("handler: %d of %d records not acknowledged, and the event source mapping from %s lacks ReportBatchItemFailures, "+
				"so Lambda would ignore the partial response and delete them: failing the whole batch; the first: %w",
				len(resp.BatchItemFailures), len(records), rec.msg.EventSourceARN, rec.failure())
		}
	}
	if !batchError || len(records) == 0 {
		return resp, nil
	}
	failed := 0
	var first error
	for i := range records {
		rec := &records[i]
		if !listed[rec.msg.MessageId] {
			return resp, nil // this message is deleted: the error would bring it back
		}
		var c counts
		if c.add(&rec.fate); c.Failed > 0 {
			if failed++; first == nil {
				first = rec.failure()
			}
		}
	}
	if failed == 0 {
		return resp, nil
	}
	return resp, fmt.Errorf("%w: %s: %w", ErrBatchFailed, howMany(failed, len(records)), first)
}

// howMany says how many of a batch's n records failed, the others (not
// acknowledged either) having waited or not run.
func howMany(failed, n int) string {
	switch {
	case n == 1:
		return "its one record failed"
	case failed == n:
		return fmt.Sprintf("all %d records failed; the first", n)
	case n-failed == 1:
		return fmt.Sprintf("%d of %d records failed, and the other one was not acknowledged either; the first failure", failed, n)
	}
	return fmt.Sprintf("%d of %d records failed, and the other %d were not acknowledged either; the first failure", failed, n, n-failed)
}

// failure is the error of a record that is not acknowledged.
func (r *record) failure() *RecordError {
	op, cause := r.fate.cause()
	return &RecordError{MessageID: r.msg.MessageId, Key: r.key, Op: op, Err: cause}
}

// reportFailure logs a record reported as a batch item failure and tells
// the failure hook, recovering its panic. A record found in progress is
// logged at level INFO, one whose retry cannot succeed (hopeless) at
// ERROR, any other at WARN.
func (b *batch) reportFailure(rec *record) {
	err := rec.failure()
	level, attrs := slog.LevelWarn, []slog.Attr{slog.String("message_id", rec.msg.MessageId), slog.String("key", string(rec.key))}
	if err.Op != "" {
		attrs = append(attrs, slog.String("op", string(err.Op)))
	}
	switch {
	case errors.Is(err.Err, idem.ErrInProgress):
		level, attrs = slog.LevelInfo, append(attrs, slog.Time("lease_until", rec.fate.leaseUntil))
	case hopeless(err.Err):
		level = slog.LevelError
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

// hopeless reports whether a record that failed with err will fail every
// receive until the dead-letter queue: its message carries no usable key
// or body, another payload holds its key, its result cannot be kept or
// replayed to the hook, or the store answered it definitively
// (idem.Retryable false, short of an ended context or a lost lease, which
// a retry may get past). Someone must look: it is logged as an error.
func hopeless(err error) bool {
	switch {
	case errors.Is(err, idem.ErrBadKey), errors.Is(err, request.ErrBadBody):
		return true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, idem.ErrLeaseLost):
		return false
	}
	return !idem.Retryable(err)
}
