package handler

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/request"
)

// Func is the work done for one message, once per idempotency key. Its
// result is stored with the key and handed to later duplicates (see
// WithReplayHook). An error releases the key and reports the message as a
// batch item failure, so the queue delivers it again.
type Func func(ctx context.Context, msg events.SQSMessage) ([]byte, error)

// Handler is what New and New return: a Lambda handler for SQS events with
// partial batch responses, exactly what lambda.Start accepts. The event
// source mapping must have FunctionResponseTypes ["ReportBatchItemFailures"]
// or Lambda ignores the response and retries whole batches.
type Handler = func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// StepFunc settles one record of a batch by a means of its own instead of
// a claim in a store: a dispatcher hands the record's work on (package
// durable starts the Lambda durable execution its record key names). It
// returns nil once the work is held by something that will not lose it,
// and only then is the message deleted; any error brings the message
// back. id is the record's request as the step handler's reader read it
// (request.Reader.ReadKey: its record key, value and scope; no
// fingerprint). ctx ends half the deadline reserve before the
// invocation's deadline.
type StepFunc func(ctx context.Context, msg events.SQSMessage, id request.ID) error
