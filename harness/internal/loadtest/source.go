package loadtest

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Source is the queue an event source mapping polls: handlertest.Queue in memory, or a
// real SQS queue (internal/pipeline).
type Source interface {
	// Receive returns up to max messages, hiding them for the visibility
	// timeout, waiting up to wait for the first one. Each carries
	// Attributes["ApproximateReceiveCount"] and a receipt handle.
	Receive(ctx context.Context, max int, wait time.Duration) ([]events.SQSMessage, error)
	// Delete acknowledges messages by their receipt handles.
	Delete(ctx context.Context, msgs []events.SQSMessage) error
	// Pending returns how many messages are still in the queue, visible or
	// in flight; dead-lettered ones do not count.
	Pending(ctx context.Context) (int, error)
}
