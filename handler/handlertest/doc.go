// Package handlertest tests an SQS-triggered handler the way the queue
// treats it: with redeliveries, on purpose. It is small on purpose too:
//
//   - Message, JSONMessage, Event, Redelivery, Duplicate and Resend make
//     SQS events for table tests: a first delivery, the same message again,
//     the broker's copy, a producer's re-send under a new message id.
//   - Queue is an in-memory standard queue with SQS's visibility timeout,
//     receive counts and dead-letter list, and Drain feeds it to a handler
//     as Lambda's event source mapping does with ReportBatchItemFailures,
//     deleting only what the partial batch response does not list.
//   - Calls counts the calls of the expensive work per request: the number
//     a test asserts on is one per request.
//
// The load, fault and provider simulations behind idemq's own proofs live
// in the harness module (harness/internal/loadtest), not here.
package handlertest
