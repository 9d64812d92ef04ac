// Package durable starts one AWS Lambda durable execution per idempotency
// key, for each message of an SQS queue: a dispatcher, the regular
// function AWS's guidance puts between a queue and a durable function
// (https://docs.aws.amazon.com/lambda/latest/dg/durable-execution-idempotency.html).
//
// An event source mapping does not deduplicate: every delivery of a
// message, every retry and every re-sent copy would start a new durable
// execution. The Dispatcher instead invokes the durable function with an
// execution name made from the message's record key (the key a
// handler.Handler given the same request.Identity claims: its namespace,
// a caller's scope, and its key), and Lambda starts at most one execution
// per name. It keeps no store: the execution name is AWS's idempotency
// guard.
//
// For each record, Dispatch reads the record key (request.Reader), maps
// it to a name (ExecutionName), and invokes the function asynchronously (InvocationType
// Event) with DurableExecutionName set and the body, in canonical JSON
// form, as the payload. Lambda answers:
//
//	Lambda's answer                                       record
//	a new execution (202 and its ARN)                     acknowledged
//	the execution of that name, same payload, running     acknowledged (AWS: "idempotent start")
//	  or closed (succeeded, failed, stopped, timed out)
//	DurableExecutionAlreadyStartedException (409):        not acknowledged: idem.ErrPayloadMismatch, logged
//	  the name is taken by another payload                as an error; it reaches the dead-letter queue
//	2xx without a durable execution ARN                   not acknowledged: ErrNotDurable
//	throttling, a server error, a lost answer, anything   not acknowledged: the queue delivers it again
//	  else
//	no key, a bad key, a body that is not JSON            not acknowledged, nothing invoked
//
// A record is acknowledged only when Lambda accepted its start or named
// the execution that already holds it with the same payload; every other
// path ends as a batch item failure. A start whose answer was lost is safe
// to repeat (the SDK's own retry, or the next delivery): the name finds the
// execution it made.
//
// The guard lasts as long as Lambda keeps the execution: while it runs,
// then for the function's retention period (DurableConfig
// RetentionPeriodInDays, 1 to 90 days, 14 by default) after it closes. A
// delivery after that starts a new execution. Size the retention to cover
// a message's whole lifetime (queue.RecordLifetime: the queue's retention,
// up to 14 days, plus the dead-letter queue's for a redrive).
//
// Handle is a Lambda handler with partial batch responses (lambda.Start(d.Handle);
// the event source mapping needs ReportBatchItemFailures), and has the
// shape of handler.Handler, so a consumer.Consumer can run it off Lambda.
// It is package handler's batch machinery with the start as its step
// (handler.NewStepHandler): the same decision, FIFO order, deadline
// guard, panic recovery, response, batch error (handler.ErrBatchFailed,
// unless Config.NoBatchError) and log lines as a handler.Handler's, so the
// two answer a batch alike. A started record counts as dispatched in the
// batch's summary line; a start no retry can change (idem.ErrPayloadMismatch,
// ErrNotDurable, request.ErrBadBody) is logged at level ERROR.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package durable
