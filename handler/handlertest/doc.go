// Package handlertest tests an SQS-triggered handler the way the queue
// treats it: with redeliveries, on purpose. It is small on purpose too:
//
//   - Message, FIFOMessage, JSONMessage, Event, Redelivery, Duplicate and
//     Resend make SQS events for table tests: a first delivery (from a
//     standard or a FIFO queue, in a message group), the same message
//     again, the broker's copy, a producer's re-send under a new message id.
//   - Queue is an in-memory queue, standard or FIFO (WithFIFO, SendToGroup:
//     a group's messages in order, none while an earlier one is in
//     flight), with SQS's visibility timeout, receive counts and dead-letter
//     list; Drain feeds it to a handler as Lambda's event source mapping
//     does with ReportBatchItemFailures, deleting only what the partial
//     batch response does not list.
//   - Calls counts the calls of the expensive work per request, the number
//     a test asserts on (one per request), and keeps their order
//     (Calls.Order), which a FIFO test asserts on: Calls.Func wraps a
//     handler.Func, TypedFunc the function of handler.NewTyped.
//   - Hold makes a store hold a key as another worker's claim: with a
//     live lease (the handler leaves the message for later), or with one
//     that has ended (a crashed worker's: the next delivery takes it
//     over).
//
// The load, fault and provider simulations behind idemq's own proofs live
// in the harness module (harness/internal/loadtest), not here.
package handlertest
