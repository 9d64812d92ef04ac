package handlertest

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/idemq/idemq/queue"
)

// Handler is what Drain invokes: a Lambda handler for SQS events with
// partial batch responses, such as handler.New returns.
type Handler = func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// Drain feeds q's messages to h in batches of up to batchSize (0:
// queue.DefaultBatchSize, the SQS event source's default), as Lambda's SQS event source mapping with
// ReportBatchItemFailures does: the records the response lists come back
// after the visibility timeout, the others are deleted, and an error or a
// malformed response brings back the whole batch. It returns when every
// message has been deleted or dead-lettered (see Queue.DeadLetters), or
// with ctx's error.
func Drain(ctx context.Context, q *Queue, h Handler, batchSize int) error {
	if batchSize <= 0 {
		batchSize = queue.DefaultBatchSize
	}
	for {
		if n, _ := q.Pending(ctx); n == 0 {
			return nil
		}
		msgs, err := q.Receive(ctx, batchSize, q.visibility)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			continue // all in flight: the next receive waits for one to come back
		}
		ev := Event(msgs...)
		resp, err := h(ctx, ev)
		if err != nil {
			continue // the whole batch comes back
		}
		failed, err := Failures(ev, resp)
		if err != nil {
			return fmt.Errorf("handlertest: %w", err)
		}
		var done []events.SQSMessage
		for _, m := range msgs {
			if !failed[m.MessageId] {
				done = append(done, m)
			}
		}
		if err := q.Delete(ctx, done); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
