package idemqcdk

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/queue"
)

// CheckQueue checks the settings of a queue (with its event source's
// batching window and its dead-letter queue's retention) against the
// timeout of the function it feeds, as NewWorker and NewAttachment do at
// synth, and returns the warnings it would deploy with, or the first
// setting that cannot be safe as a *SettingError whose Field names it (a
// queue.Settings field, or "Timeout"):
//   - a setting SQS or Lambda does not accept (queue.Settings.Validate), or
//     a timeout that is not whole seconds from 1 s to 15 min;
//   - a visibility timeout shorter than the timeout (Lambda refuses it: a
//     message would show again while its first receive still runs);
//   - max receives too few for a message whose worker crashed mid-call to
//     be retried once its claim's lease ends, the lease being the
//     function's (the invocation's time left plus idem.DefaultLeaseMargin):
//     one receive finds it in progress with backoff (handler.WithBackoff),
//     one every visibility timeout while the lease runs without; under
//     queue.MinSafeMaxReceives in any case;
//   - a retention that ends before that retry.
//
// It warns of a visibility timeout under the batching window and the
// timeout together (a message can show again while its function runs it;
// AWS's guidance of 6 × the timeout + the window is not required), of a
// dead letter sure to stay less than 3 days in the dead-letter
// queue, each warning's message saying the change that makes it go away.
func CheckQueue(q queue.Settings, timeout time.Duration, backoff bool) (warnings []string, err error) {
	if err := q.Validate(); err != nil {
		field := ""
		if se, ok := errors.AsType[*queue.SettingError](err); ok {
			field = se.Setting
		}
		return nil, &SettingError{Field: field, Msg: "the queue's settings", Err: err}
	}
	if !inSeconds(timeout, time.Second, maxTimeout) {
		return nil, &SettingError{Field: "Timeout", Msg: fmt.Sprintf("Timeout %s must be whole seconds from 1s to %s", timeout, maxTimeout)}
	}
	s := settings{
		timeout: timeout, retention: q.Retention, visibility: q.VisibilityTimeout, window: q.BatchingWindow,
		maxReceives: q.MaxReceives, dlqRetention: q.DeadLetterRetention, fifo: q.FIFO, backoff: backoff, existingQueue: true,
	}
	if err := s.checkQueue(fieldName); err != nil {
		return nil, err
	}
	// What checkQueue accepts, RecordLifetime does: this only keeps the
	// two from drifting apart unseen.
	if err := s.resolveExpiry(0, fieldName); err != nil {
		return nil, err
	}
	for _, w := range s.warnings {
		warnings = append(warnings, w.msg)
	}
	return warnings, nil
}
