// Package handlertest tests an SQS-triggered handler the way the queue
// treats it: with redeliveries, on purpose.
//
//   - Message, Event, Redelivery, Duplicate and Resend make SQS events
//     for table tests: a first delivery, the same message again, the
//     broker's copy, a producer's re-send under a new message id.
//   - Queue is an in-memory standard queue with SQS's visibility timeout,
//     receive counts and dead-letter list; ESM is Lambda's SQS event source
//     mapping with ReportBatchItemFailures, running a handler
//     (InvokerFunc(handler.WrapSQS(...))) on several instances at once and
//     deleting only what the partial batch response does not list.
//   - Faults picks, reproducibly from a seed, the messages and keys that
//     each cause of redelivery hits; Send is the producer and re-sends;
//     FaultStore makes an idem.Store slow, failing and answer-losing.
//   - Provider is a fake OpenAI-compatible model provider that takes a set
//     time per call and counts calls per request: the number a test
//     asserts on is Provider.Calls.
//
// The same ESM drives idemq's real local pipeline (internal/pipeline), where
// the queue is an SQS server and the instances are the reference worker
// under Lambda Runtime Interface Emulators.
package handlertest
