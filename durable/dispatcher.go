package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

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
	client      Invoker
	function    string
	reader      *request.Reader // each record's key, in the namespace
	concurrency int
	logger      *slog.Logger
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
// qualified function. New returns an *idem.ConfigError naming the setting
// if client, function or an option is nil or empty, if function has no
// qualifier, or if a setting cannot be safe (Config.Validate).
func New(client Invoker, function string, opts ...Option) (*Dispatcher, error) {
	if client == nil {
		return nil, configError("client", "", idem.ErrNil)
	}
	if err := checkFunction(function); err != nil {
		return nil, err
	}
	c, err := idem.ApplyOptions("durable", opts)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.Default()
	}
	id := c.Request
	if id.Namespace == "" {
		if id.Namespace, err = defaultNamespace(logger); err != nil {
			return nil, err
		}
	}
	reader, err := request.NewReader(id)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{client: client, function: function, reader: reader, concurrency: c.Concurrency, logger: logger}
	if d.concurrency == 0 {
		d.concurrency = DefaultConcurrency
	}
	return d, nil
}

// Dispatch starts the durable execution msg's key names, with msg's body
// (in canonical form, idemjson.Canonical) as its payload, invoked
// asynchronously (InvocationType Event). It returns the Start when Lambda
// accepted it: a new execution, or the one already running or closed
// under that name with the same payload. Any other answer is a
// *RecordError: the key could not be read, the body is not JSON
// (ErrBadPayload), the name is taken by another payload (ErrKeyReused),
// the function is not durable (ErrNotDurable), or the Lambda client's
// error (throttling, a lost answer, ...).
func (d *Dispatcher) Dispatch(ctx context.Context, msg events.SQSMessage) (Start, error) {
	fail := func(s Start, err error) (Start, error) {
		return Start{}, &RecordError{MessageID: msg.MessageId, Key: string(s.Key), Name: s.Name, Err: err}
	}
	var s Start
	id, err := d.reader.ReadKey(msg)
	if err != nil {
		return fail(s, err)
	}
	s.Key, s.Name = id.Key, ExecutionName(string(id.Key))
	payload, err := idemjson.Canonical([]byte(msg.Body))
	if err != nil {
		return fail(s, fmt.Errorf("%w: %w", ErrBadPayload, err))
	}
	out, err := d.invoke(ctx, &lambda.InvokeInput{
		FunctionName:         aws.String(d.function),
		InvocationType:       types.InvocationTypeEvent,
		DurableExecutionName: aws.String(s.Name),
		Payload:              payload,
	})
	var taken *types.DurableExecutionAlreadyStartedException
	switch {
	case errors.As(err, &taken):
		return fail(s, fmt.Errorf("%w: %w", ErrKeyReused, err))
	case err != nil:
		return fail(s, err)
	case out == nil || aws.ToString(out.DurableExecutionArn) == "":
		return fail(s, ErrNotDurable)
	}
	s.ExecutionArn = *out.DurableExecutionArn
	return s, nil
}

// invoke calls the client, turning its panic into ErrPanic.
func (d *Dispatcher) invoke(ctx context.Context, in *lambda.InvokeInput) (out *lambda.InvokeOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w in the Lambda client: %v", ErrPanic, p)
		}
	}()
	return d.client.Invoke(ctx, in)
}

// outcome is a record's slot: its zero value is a failure (ErrNoOutcome).
type outcome struct {
	err  error
	done bool
}

func (o outcome) failed() error {
	switch {
	case !o.done:
		return ErrNoOutcome
	default:
		return o.err
	}
}

// Handle is a Lambda handler for SQS events with partial batch responses
// (handler.Handler's shape: lambda.Start(d.Handle), or a consumer's
// handler): it dispatches every record and reports as batch item failures
// those whose start Lambda did not accept, so that the queue delivers them
// again. A record is acknowledged only when Dispatch returned its Start.
// Records of a standard queue start at once, Config.Concurrency at a time;
// a FIFO batch starts in order, one at a time, and after its first
// failure every later record fails (ErrFIFOBlocked), as Lambda asks of
// FIFO queues. Handle returns an error only when a failed record has no
// message id (Lambda could not be told which failed, so the whole batch
// comes back).
func (d *Dispatcher) Handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	recs := event.Records
	outs := make([]outcome, len(recs))
	one := func(i int) {
		defer func() {
			if p := recover(); p != nil {
				outs[i] = outcome{err: &RecordError{MessageID: recs[i].MessageId, Err: fmt.Errorf("%w: %v", ErrPanic, p)}, done: true}
			}
		}()
		if err := ctx.Err(); err != nil {
			outs[i] = outcome{err: &RecordError{MessageID: recs[i].MessageId, Err: err}, done: true}
			return
		}
		_, err := d.Dispatch(ctx, recs[i])
		outs[i] = outcome{err: err, done: true}
	}
	if fifo(recs) {
		for i := range recs {
			if i > 0 && outs[i-1].failed() != nil {
				outs[i] = outcome{err: &RecordError{MessageID: recs[i].MessageId, Err: ErrFIFOBlocked}, done: true}
				continue
			}
			one(i)
		}
	} else {
		sem := make(chan struct{}, d.concurrency)
		var wg sync.WaitGroup
		for i := range recs {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				one(i)
			}()
		}
		wg.Wait()
	}
	return d.respond(ctx, recs, outs)
}

// respond turns the outcomes into the partial batch response, logging
// each failure and the batch.
func (d *Dispatcher) respond(ctx context.Context, recs []events.SQSMessage, outs []outcome) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	var noID error
	failed := 0
	for i, o := range outs {
		err := o.failed()
		if err == nil {
			continue
		}
		failed++
		level := slog.LevelWarn
		if errors.Is(err, ErrKeyReused) || errors.Is(err, ErrNotDurable) {
			level = slog.LevelError // retrying cannot help: someone must look
		}
		d.logger.Log(ctx, level, "durable: record not acknowledged", "messageId", recs[i].MessageId, "err", err.Error())
		if recs[i].MessageId == "" {
			noID = fmt.Errorf("durable: record %d failed and has no message id: %w", i, err)
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: recs[i].MessageId})
	}
	d.logger.Info("durable: batch", "records", len(recs), "started", len(recs)-failed, "failed", failed)
	if noID != nil {
		return events.SQSEventResponse{}, noID
	}
	return resp, nil
}

// fifo reports whether the batch comes from a FIFO queue: only the ".fifo"
// suffix of the event source ARN says so.
func fifo(recs []events.SQSMessage) bool {
	for _, r := range recs {
		if strings.HasSuffix(r.EventSourceARN, ".fifo") {
			return true
		}
	}
	return false
}
