// Package stream runs the records of ordered stream sources (a Kinesis
// data stream's shard, a DynamoDB table's stream, the partitions of a
// Kafka batch: see Handlers.Kafka) through a handler made
// by handler.New, NewTyped or NewStepHandler, on the same decision path as
// SQS messages, and answers with the checkpoint Lambda resumes the shard
// from:
//
//	h, err := handler.New(store, fn)
//	if err != nil {
//		return err
//	}
//	lambda.Start(stream.New(h).Kinesis)
//
// Each record becomes the message the function sees: its data (DynamoDB
// Streams: the item's image as plain JSON) is the body, its sequence
// number the message id, its partition key (DynamoDB Streams: the item's
// key) the message group. The key is read from the body as for SQS, never
// from the sequence number.
//
// The batch runs as a FIFO queue's with message group isolation: the
// records of a partition key run in order, and after one that is not
// acknowledged (it failed, or its key is in progress elsewhere) no later
// record of that key starts; other keys go on. The response reports the
// first record, in the shard's order, that is not acknowledged, as the
// batch item failure: Lambda checkpoints everything before it and sends
// the rest again, whose records already done replay their stored results
// without running. Nothing is reported when every record is done.
//
// A stream has no visibility timeout, and Lambda sends a failed batch
// again at once: a key in progress in another invocation is waited for
// in this one, claimed again by doubling steps (250 ms up to 8 s apart),
// so that a live holder's result is replayed soon after it completes and
// a crashed holder's key taken over once its lease has passed (it would
// otherwise spend the mapping's retry attempts, one per resend, until
// its lease ended); a key still held at the invocation's deadline guard
// makes the record a failure the shard resumes from (handler.WithBackoff
// does nothing here). A batch in
// which every record failed still reports its first record, where SQS's
// handler returns handler.ErrBatchFailed: an error would make Lambda
// ignore the checkpoint and retry, or bisect, the whole batch. The
// invocation fails only when its answer cannot be trusted: a handler that
// did not run the batch as a stream's, a sequence number missing or twice
// in the batch, an image that cannot be written as JSON. A record whose
// key cannot be read holds its shard, as a failed message on a FIFO queue
// holds its group, until the mapping's maximum retry attempts or record
// age ends it (to its on-failure destination). A record run without a key
// (handler.WithKeyless) stores no result: after a checkpoint it runs
// again.
//
// Keep records (idem.Config.Expiry) for queue.Stream's RecordLifetime:
// as long as the stream keeps its records (Kinesis: 24 hours to 365 days;
// DynamoDB Streams: 24 hours), or the mapping's maximum record age if
// shorter, plus the batching window and the timeout, and a redrive from
// the on-failure destination (the CDK's Attachment to a stream sizes it
// so: idemqcdk.StreamSource). For DynamoDB Streams the key is
// an attribute the writer sets on each change, not the item's key alone:
// every change of an item shares that, and the second change would replay
// the first one's result.
package stream

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/internal/streamctx"
)

// Handlers are the Lambda handlers of ordered stream sources, each
// running its batch through one handler.Handler.
type Handlers struct {
	h handler.Handler
}

// New returns the stream handlers that run their batches through h, a
// handler made by this module's handler package (handler.New, NewTyped,
// NewStepHandler): a handler that does not run the batch as an ordered
// stream's fails the whole batch with an error rather than report a
// checkpoint it cannot vouch for. A nil h fails every batch.
func New(h handler.Handler) *Handlers { return &Handlers{h: h} }

// groupAttribute is the SQS system attribute the handler reads a
// record's message group from.
const groupAttribute = "MessageGroupId"

// run runs the batch msgs (adapted from the stream's records, in the
// shard's order, each record's sequence number its message id) through
// the handler, and returns the index of the record whose sequence number
// is the batch item failure: the first record not acknowledged (Lambda
// sends one shard per batch, so there is one checkpoint), or -1 when
// every record is. An error means the whole batch comes back.
func (s *Handlers) run(ctx context.Context, msgs []events.SQSMessage) (int, error) {
	reported, err := s.reported(ctx, msgs)
	if err != nil {
		return -1, err
	}
	for i, r := range reported {
		if r {
			return i, nil
		}
	}
	return -1, nil
}

// reported runs the batch msgs (each record's message id unique in the
// batch) through the handler, and tells, per record, whether the handler
// reported it: it is not acknowledged. An error means the whole batch
// comes back.
func (s *Handlers) reported(ctx context.Context, msgs []events.SQSMessage) ([]bool, error) {
	if s == nil || s.h == nil {
		return nil, errors.New("stream: no handler (stream.New(nil)); the whole batch comes back")
	}
	index := make(map[string]int, len(msgs))
	for i := range msgs {
		id := msgs[i].MessageId
		if id == "" {
			return nil, fmt.Errorf("stream: record %d has no sequence number; the whole batch comes back", i)
		}
		if _, dup := index[id]; dup {
			return nil, fmt.Errorf("stream: sequence number %s appears twice in the batch; the whole batch comes back", id)
		}
		index[id] = i
	}
	ctx, mark := streamctx.With(ctx)
	resp, err := s.h(ctx, events.SQSEvent{Records: msgs})
	if err != nil {
		return nil, err
	}
	if !mark.Seen() {
		return nil, errors.New("stream: the handler did not run the batch as an ordered stream's (is it one of handler.New, NewTyped or NewStepHandler?); the whole batch comes back")
	}
	reported := make([]bool, len(msgs))
	for _, f := range resp.BatchItemFailures {
		i, ok := index[f.ItemIdentifier]
		if !ok {
			return nil, fmt.Errorf("stream: the handler reported %q, which is no record's sequence number; the whole batch comes back", f.ItemIdentifier)
		}
		reported[i] = true
	}
	return reported, nil
}
