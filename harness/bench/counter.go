package bench

import (
	"context"
	"errors"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// Counter counts the requests a DynamoDB client sends, per operation: each
// attempt, counted by a middleware at the end of the finalize step (after
// the retryer), which is what DynamoDB is sent and bills. It also counts
// the calls (at the initialize step), so the SDK's retries show apart from
// the requests the code asked for.
//
// It also asks DynamoDB for the capacity every call consumes
// (ReturnConsumedCapacity TOTAL) and adds it up. A write whose condition
// fails returns no consumed capacity, yet DynamoDB bills it by the size of
// the item that holds the key (at least one unit): the counter takes that
// from the item the failure returns (ReturnValuesOnConditionCheckFailure),
// or one unit without it.
type Counter struct {
	mu         sync.Mutex
	attempts   map[string]int
	calls      int
	writeUnits float64
	readUnits  float64
}

// Usage is what a Counter counted since the last Take.
type Usage struct {
	Requests   map[string]int // attempts per operation
	Retries    int            // attempts beyond the calls: the SDK's retries
	WriteUnits float64        // write capacity units consumed
	ReadUnits  float64        // read capacity units consumed
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
				askCapacity(in.Parameters)
				out, md, err := next.HandleInitialize(ctx, in)
				w, r := consumed(out.Result, err)
				c.mu.Lock()
				c.writeUnits += w
				c.readUnits += r
				c.mu.Unlock()
				return out, md, err
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

// Take returns what was counted so far and starts again from zero.
func (c *Counter) Take() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := Usage{Requests: maps.Clone(c.attempts), WriteUnits: c.writeUnits, ReadUnits: c.readUnits}
	for _, n := range c.attempts {
		u.Retries += n
	}
	u.Retries -= c.calls
	clear(c.attempts)
	c.calls, c.writeUnits, c.readUnits = 0, 0, 0
	return u
}

// askCapacity sets ReturnConsumedCapacity on the inputs of the operations
// the implementations send.
func askCapacity(in any) {
	const total = types.ReturnConsumedCapacityTotal
	switch in := in.(type) {
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = total
	}
}

// consumed is the write and read capacity a call consumed, from its output
// or, for a failed condition, from the size of the item that failed it.
func consumed(out any, err error) (write, read float64) {
	if failed, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return writeUnits(itemBytes(failed.Item)), 0
	}
	units := func(c *types.ConsumedCapacity) float64 {
		if c == nil || c.CapacityUnits == nil {
			return 0
		}
		return *c.CapacityUnits
	}
	switch out := out.(type) {
	case *dynamodb.PutItemOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.UpdateItemOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.DeleteItemOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.GetItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		for _, c := range out.ConsumedCapacity {
			write += units(&c)
		}
	}
	return write, 0
}
