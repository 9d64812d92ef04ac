// Package queue is the arithmetic of an SQS queue's settings: how long a
// message can keep being delivered, and so how long its idempotency record
// must be kept (RecordLifetime), whether a record expiry covers it
// (CheckExpiry), and whether a message whose worker crashed holding its
// claim can still be retried (CheckLease). It also holds SQS's limits on
// one message: its size (MaxMessageBytes) and the text it takes
// (CheckText); and the back-off after a failed SQS call that the producer
// and the consumer share (Backoff, from DefaultRetryMin to
// DefaultRetryMax).
//
// Stream is the same arithmetic for an ordered stream (a Kinesis data
// stream, a DynamoDB table's stream) and its event source mapping: its
// retention, maximum retry attempts and record age, and the on-failure
// destination's retention, in Stream.RecordLifetime and CheckExpiry.
//
// A deployment describes its queue and event source mapping once, as a
// Settings, and every part that sizes something from them reads it: the
// CDK stack (infra/idemqcdk) sizes the table's expiry and hands the
// settings to the worker as JSON (the IDEMQ_QUEUE variable); the worker
// (lambda/) checks its expiry and lease against them; the handler caps its
// in-progress back-off at MaxVisibility.
//
// Settings are checked against the limits SQS and Lambda place on them
// (MinRetention, MaxVisibility, ...); settings no record lifetime can
// cover are ErrInvalidSettings.
//
// The package imports nothing but the standard library.
package queue
