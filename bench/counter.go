package bench

import (
	"context"
	"maps"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// Counter counts the requests a DynamoDB client sends, per operation: each
// attempt, counted by a middleware at the end of the finalize step (after
// the retryer), which is what DynamoDB is sent and bills. It also counts
// the calls (at the initialize step), so the SDK's retries show apart from
// the requests the code asked for.
type Counter struct {
	mu       sync.Mutex
	attempts map[string]int
	calls    int
}

// NewCounter returns a Counter at zero.
func NewCounter() *Counter { return &Counter{attempts: make(map[string]int)} }

// Middleware returns the API option that installs the counter on a client
// (dynamodb.Options.APIOptions).
func (c *Counter) Middleware() func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("idemqBenchCalls",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				c.mu.Lock()
				c.calls++
				c.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
		if err != nil {
			return err
		}
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("idemqBenchAttempts",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				op := awsmiddleware.GetOperationName(ctx)
				c.mu.Lock()
				c.attempts[op]++
				c.mu.Unlock()
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	}
}

// Take returns the requests (attempts) per operation and the number of
// retries (attempts beyond the calls) so far, and starts again from zero.
func (c *Counter) Take() (requests map[string]int, retries int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	requests = maps.Clone(c.attempts)
	for _, n := range c.attempts {
		retries += n
	}
	retries -= c.calls
	clear(c.attempts)
	c.calls = 0
	return requests, retries
}
