package loadtest

import (
	"context"
	"errors"

	"github.com/aws/aws-lambda-go/events"
)

// Invoker is one function instance, as the event source mapping sees it:
// it takes one batch at a time. A wrapped handler called in process is one
// (InvokerFunc); so is the reference worker under a Lambda Runtime
// Interface Emulator (see internal/pipeline).
type Invoker interface {
	Invoke(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)
}

// InvokerFunc adapts a handler, such as the one handler.New returns, to
// an Invoker.
type InvokerFunc func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// Invoke calls f.
func (f InvokerFunc) Invoke(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	return f(ctx, event)
}

// Killer is an Invoker whose process can be killed: the event source
// mapping calls Kill to crash the instance (fault CrashBeforeAck), and
// expects it to be ready for the next batch when Kill returns, as Lambda
// starts a new execution environment.
type Killer interface {
	Kill(ctx context.Context) error
}

// ErrCrashed is what an Invoker's error wraps when its instance died during
// the invocation (it was killed, fault CrashDuringCall): the event source
// mapping counts the batch's failure as a crash.
var ErrCrashed = errors.New("handlertest: the instance crashed")
