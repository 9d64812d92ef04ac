package durable

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/request"
)

// Invoker is the Lambda API the Dispatcher calls: Invoke, which
// *lambda.Client implements.
type Invoker interface {
	Invoke(ctx context.Context, params *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// Dispatcher starts one Lambda durable execution per idempotency key, named
// after the key, for each record of an SQS batch; see the package
// documentation. It is safe for concurrent use.
type Dispatcher struct {
	client   Invoker
	function string
	reader   *request.Reader // each record's key, in the namespace
	// handle is the batch machinery of package handler with the
	// dispatcher's start as its step (handler.NewStepHandler).
	handle handler.Handler
}

// Start is a record's start that Lambda accepted: the execution its key
// names, new or already there (Lambda answers both alike).
type Start struct {
	// Key is the record key a handler given the same request.Identity
	// claims for the message: its namespace, its scope if any, and its
	// key (request.ID.Key).
	Key idem.Key
	// Name is the execution name sent: ExecutionName(string(Key)).
	Name string
	// ExecutionArn is the durable execution's ARN, as Lambda returned it.
	ExecutionArn string
}

// New returns a Dispatcher that starts executions of function through
// client. function is the durable function's name or ARN with its version
// or alias (my-function:prod): Lambda starts durable executions only of a
// qualified function. New returns an error joining an *idem.ConfigError
// for every bad setting (see idem.ConfigErrors): client or an option is
// nil, function is empty or has no qualifier, a setting cannot be safe
// (Config.Validate).
func New(client Invoker, function string, opts ...Option) (*Dispatcher, error) {
	var errs []error
	if client == nil {
		errs = append(errs, configError("client", "", idem.ErrNil))
	}
	errs = append(errs, checkFunction(function))
	c, err := idem.ApplyOptions("durable", opts)
	errs = append(errs, err)
	c, program, err := c.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	if program {
		c.Logger.Warn("idemq: no namespace (AWS_LAMBDA_FUNCTION_NAME is unset); using the program's name. "+
			"Executions are named after keys in it: pass durable.WithRequest with the handler's namespace", "namespace", c.Request.Namespace)
	}
	reader, err := request.NewReader(c.Request)
	if err != nil {
		return nil, err // the program's name broke the key rule
	}
	d := &Dispatcher{client: client, function: function, reader: reader}
	batch := []handler.Option{handler.WithConcurrency(c.Concurrency), handler.WithLogger(c.Logger)}
	if c.NoBatchError {
		batch = append(batch, func(c *handler.Config) { c.NoBatchError = true })
	}
	if d.handle, err = handler.NewStepHandler(reader, d.step, batch...); err != nil {
		return nil, err
	}
	return d, nil
}

// Dispatch starts the durable execution msg's key names, with msg's body
// (in canonical form, idemjson.Canonical) as its payload, invoked
// asynchronously (InvocationType Event). It returns the Start when Lambda
// accepted it: a new execution, or the one already running or closed
// under that name with the same payload. Any other answer is a
// *handler.RecordError, as Handle's failures are: at handler.OpKey when
// the key could not be read (idem.ErrNoKey, idem.ErrBadKey, ...), at
// idem.OpRun with a cause naming the execution otherwise: the body is not JSON
// (request.ErrBadBody), the name is taken by another payload
// (idem.ErrPayloadMismatch), the function is not durable (ErrNotDurable),
// or the Lambda client's error (throttling, a lost answer, ...). A panic of the client is the
// caller's (Handle recovers it: handler.ErrPanic).
func (d *Dispatcher) Dispatch(ctx context.Context, msg events.SQSMessage) (Start, error) {
	id, err := d.reader.ReadKey(msg)
	if err != nil {
		return Start{}, &handler.RecordError{MessageID: msg.MessageId, Op: handler.OpKey, Err: err}
	}
	s, err := d.start(ctx, msg, id)
	if err != nil {
		return Start{}, &handler.RecordError{MessageID: msg.MessageId, Key: s.Key, Op: idem.OpRun, Err: fmt.Errorf("execution %s: %w", s.Name, err)}
	}
	return s, nil
}

// start invokes the durable function with msg's body under the execution
// name id's record key makes. An answer that no retry can change
// (idem.ErrPayloadMismatch, ErrNotDurable, request.ErrBadBody) is marked idem.Permanent,
// so that Handle logs it as an error.
func (d *Dispatcher) start(ctx context.Context, msg events.SQSMessage, id request.ID) (Start, error) {
	s := Start{Key: id.Key, Name: ExecutionName(string(id.Key))}
	payload, err := idemjson.Canonical([]byte(msg.Body))
	if err != nil {
		return s, idem.Permanent(fmt.Errorf("%w: %w", errBadPayload, err))
	}
	out, err := d.client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:         aws.String(d.function),
		InvocationType:       types.InvocationTypeEvent,
		DurableExecutionName: aws.String(s.Name),
		Payload:              payload,
	})
	var taken *types.DurableExecutionAlreadyStartedException
	switch {
	case errors.As(err, &taken):
		return s, idem.Permanent(fmt.Errorf("%w: %w", errKeyReused, err))
	case err != nil:
		return s, err
	case out == nil || aws.ToString(out.DurableExecutionArn) == "":
		return s, idem.Permanent(ErrNotDurable)
	}
	s.ExecutionArn = *out.DurableExecutionArn
	return s, nil
}

// step is the dispatcher's handler.StepFunc: a record is settled when
// Lambda accepted its start.
func (d *Dispatcher) step(ctx context.Context, msg events.SQSMessage, id request.ID) error {
	s, err := d.start(ctx, msg, id)
	if err != nil {
		return fmt.Errorf("execution %s: %w", s.Name, err)
	}
	return nil
}

// Handle is a Lambda handler for SQS events with partial batch responses
// (handler.Handler's shape: lambda.Start(d.Handle), or a consumer's
// handler): it starts every record's execution and reports as batch item
// failures those whose start Lambda did not accept, so that the queue
// delivers them again. It is package handler's batch machinery with the
// start as its step (handler.NewStepHandler), so it answers a batch as a
// handler.Handler does: a record is acknowledged only when Lambda accepted
// its start; a record without a usable key fails at handler.OpKey and
// starts nothing; records start Config.Concurrency at a time, a FIFO
// message group's in order, and on a FIFO queue nothing after a failure
// starts or is acknowledged (handler.ErrFIFOBlocked); a record not
// started near the invocation's deadline fails with handler.ErrDeadline;
// a panic fails its record (handler.ErrPanic). Each failure is a
// *handler.RecordError (Key is the record key), logged as the handler
// logs it, and the batch's summary line counts started records as
// dispatched. Handle returns an error when a failed record has no message
// id, and, unless Config.NoBatchError, handler.ErrBatchFailed when no record
// of the batch is acknowledged and one at least failed; either way Lambda
// brings back the whole batch.
func (d *Dispatcher) Handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	return d.handle(ctx, event)
}
