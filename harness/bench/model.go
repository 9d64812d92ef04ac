package bench

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// completion is what the simulated model returns for every request: about
// the size of a short summary with its envelope. bench/powertools returns
// the same object.
var completion = []byte(`{"id":"cmpl-bench","model":"bench-model","content":"A three-sentence summary of the document, as long as a short answer from a model would be."}`)

// model returns the work of one record: a model call that takes delay (a
// sleep; none when 0) and returns completion, counting its calls.
func model(delay time.Duration, calls *atomic.Int64) func(context.Context, events.SQSMessage) ([]byte, error) {
	return func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
		calls.Add(1)
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		return completion, nil
	}
}
