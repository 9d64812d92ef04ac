// Package durabletest is a fake of the one Lambda API a durable dispatcher
// calls, Invoke, spoken over Lambda's REST protocol so that the real SDK
// client can be pointed at it (lambda.Options.BaseEndpoint): a start with
// an execution name is kept by that name, and a start under a name that
// exists is answered as AWS documents
// (https://docs.aws.amazon.com/lambda/latest/dg/durable-execution-idempotency.html):
// the same payload gets the existing execution, another payload
// DurableExecutionAlreadyStartedException (HTTP 409). Faults are injected
// per request: throttling, a server error, a connection dropped before the
// start is applied, or after (a lost answer).
package durabletest
