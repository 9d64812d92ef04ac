package streamtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Handler is a stream handler Drain invokes: handler/stream's Kinesis or
// DynamoDB (or any function of the same type).
type Handler interface {
	func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error) |
		func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
}

// Result is what a Drain did.
type Result struct {
	// Invocations is how many times the handler was invoked.
	Invocations int
	// Checkpoint is the sequence number of the last record checkpointed
	// ("" when none was).
	Checkpoint string
	// OnFailure holds the metadata of the batches the mapping gave up on,
	// as its on-failure destination gets it, in order.
	OnFailure []Failure
}

// Failure is the metadata of a batch the mapping gave up on (Lambda's
// KinesisBatchInfo or DDBStreamBatchInfo with its request's condition).
type Failure struct {
	// Condition is "RetryAttemptsExhausted" or "RecordAgeExceeded".
	Condition string
	// The batch's first and last records' sequence numbers, its size.
	StartSequenceNumber, EndSequenceNumber string
	BatchSize                              int
	// When the batch's first and last records entered the stream.
	ApproximateArrivalOfFirstRecord, ApproximateArrivalOfLastRecord time.Time
	// ApproximateInvokeCount is how many times the batch was sent.
	ApproximateInvokeCount int
}

// The conditions of a Failure.
const (
	retryAttemptsExhausted = "RetryAttemptsExhausted"
	recordAgeExceeded      = "RecordAgeExceeded"
)

// Drain invokes h with the records of shard from its start, as Lambda's
// event source mapping with ReportBatchItemFailures and m's settings
// does (the package's doc says how), until the shard has no record past
// the checkpoint. It returns what it did, or an error when the shard
// cannot be read, ctx ends, or h is not of R's source (a Kinesis reader
// with a DynamoDB handler).
func Drain[R Record, H Handler](ctx context.Context, shard Reader[R], h H, m Mapping) (Result, error) {
	invoke, err := invoker[R](h)
	if err != nil {
		return Result{}, err
	}
	m = m.withDefaults()
	d := drain[R]{m: m, invoke: invoke}
	for {
		if err := ctx.Err(); err != nil {
			return d.res, err
		}
		var batch []R
		half := len(d.pending) > 0
		if half {
			batch, d.pending = d.pending[len(d.pending)-1], d.pending[:len(d.pending)-1]
		} else {
			if batch, err = shard.Read(ctx, d.res.Checkpoint, m.BatchSize); err != nil {
				return d.res, fmt.Errorf("streamtest: reading the shard after %q: %w", d.res.Checkpoint, err)
			}
			if len(batch) == 0 {
				return d.res, nil
			}
			if len(batch) > m.BatchSize {
				return d.res, fmt.Errorf("streamtest: the reader returned %d records, more than the %d asked for", len(batch), m.BatchSize)
			}
			if d.res.Checkpoint != "" && sequence(batch[0]) == d.res.Checkpoint {
				return d.res, fmt.Errorf("streamtest: the reader returned the checkpointed record %s again: it must read after it", d.res.Checkpoint)
			}
		}
		if batch = d.expire(batch); len(batch) > 0 {
			d.run(ctx, batch, half)
		}
	}
}

// drain is one Drain's state: the checkpoint (in res), the halves of
// bisected batches still to send (the next one last), the retries from
// the current checkpoint.
type drain[R Record] struct {
	m        Mapping
	invoke   func(context.Context, []R) (int, error)
	res      Result
	pending  [][]R
	attempts int
}

// expire discards the records of batch older than MaximumRecordAge (in
// the shard's order, they come first) and returns the rest.
func (d *drain[R]) expire(batch []R) []R {
	if d.m.MaximumRecordAge <= 0 {
		return batch
	}
	now := d.m.Now()
	n := 0
	for n < len(batch) && now.Sub(arrival(batch[n])) > d.m.MaximumRecordAge {
		n++
	}
	if n > 0 {
		d.giveUp(batch[:n], recordAgeExceeded)
	}
	return batch[n:]
}

// run invokes the handler with batch and moves the checkpoint as its
// outcome says; half says batch is a bisected half, which retries its own
// records rather than a new read from the checkpoint.
func (d *drain[R]) run(ctx context.Context, batch []R, half bool) {
	d.res.Invocations++
	if d.m.FunctionTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.m.FunctionTimeout)
		defer cancel()
	}
	at, err := d.invoke(ctx, slices.Clone(batch))
	switch {
	case err == nil && at < 0: // every record done
		d.checkpoint(batch[len(batch)-1])
	case err == nil: // resume from batch[at]
		if at > 0 {
			d.checkpoint(batch[at-1])
		} else {
			d.attempts++
		}
		rest := batch[at:]
		if d.exhausted() {
			d.giveUp(rest, retryAttemptsExhausted)
			return
		}
		if half {
			d.pending = append(d.pending, rest)
		}
	case d.m.BisectBatchOnFunctionError && len(batch) > 1:
		mid := len(batch) / 2
		d.pending = append(d.pending, batch[mid:], batch[:mid])
	default: // the whole batch again
		d.attempts++
		if d.exhausted() {
			d.giveUp(batch, retryAttemptsExhausted)
			return
		}
		if half {
			d.pending = append(d.pending, batch)
		}
	}
}

func (d *drain[R]) exhausted() bool {
	return d.m.MaximumRetryAttempts >= 0 && d.attempts > d.m.MaximumRetryAttempts
}

// checkpoint moves the checkpoint to r: a new position, whose retries
// count from none.
func (d *drain[R]) checkpoint(r R) {
	d.res.Checkpoint = sequence(r)
	d.attempts = 0
}

// giveUp sends batch's metadata to the on-failure list and checkpoints
// past it.
func (d *drain[R]) giveUp(batch []R, condition string) {
	first, last := batch[0], batch[len(batch)-1]
	d.res.OnFailure = append(d.res.OnFailure, Failure{
		Condition:                       condition,
		StartSequenceNumber:             sequence(first),
		EndSequenceNumber:               sequence(last),
		BatchSize:                       len(batch),
		ApproximateArrivalOfFirstRecord: arrival(first),
		ApproximateArrivalOfLastRecord:  arrival(last),
		ApproximateInvokeCount:          d.attempts,
	})
	d.checkpoint(last)
}

// invoker adapts h to a batch of R: it returns the index of the record
// the shard resumes from (the first of those the response names), -1
// when every record is done, or an error when the whole batch failed (h
// returned one, or the response names a record that is not in the batch,
// or none).
func invoker[R Record, H Handler](h H) (func(context.Context, []R) (int, error), error) {
	var zero R
	switch h := any(h).(type) {
	case func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error):
		if _, ok := any(zero).(events.KinesisEventRecord); !ok {
			return nil, errors.New("streamtest: a Kinesis handler for a shard that is not Kinesis's")
		}
		return func(ctx context.Context, batch []R) (int, error) {
			recs := any(batch).([]events.KinesisEventRecord)
			resp, err := h(ctx, events.KinesisEvent{Records: recs})
			if err != nil {
				return -1, err
			}
			ids := make([]string, len(resp.BatchItemFailures))
			for i, f := range resp.BatchItemFailures {
				ids[i] = f.ItemIdentifier
			}
			return resumeAt(batch, ids)
		}, nil
	case func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error):
		if _, ok := any(zero).(events.DynamoDBEventRecord); !ok {
			return nil, errors.New("streamtest: a DynamoDB handler for a shard that is not a DynamoDB table stream's")
		}
		return func(ctx context.Context, batch []R) (int, error) {
			recs := any(batch).([]events.DynamoDBEventRecord)
			resp, err := h(ctx, events.DynamoDBEvent{Records: recs})
			if err != nil {
				return -1, err
			}
			ids := make([]string, len(resp.BatchItemFailures))
			for i, f := range resp.BatchItemFailures {
				ids[i] = f.ItemIdentifier
			}
			return resumeAt(batch, ids)
		}, nil
	}
	return nil, fmt.Errorf("streamtest: no handler (%T)", h)
}

// resumeAt returns the index in batch of the earliest record ids names
// (Lambda checkpoints at the lowest sequence number reported), -1 for
// none; an id that is empty or names no record of the batch fails the
// whole batch.
func resumeAt[R Record](batch []R, ids []string) (int, error) {
	at := -1
	for _, id := range ids {
		i := slices.IndexFunc(batch, func(r R) bool { return sequence(r) == id })
		if i < 0 {
			return -1, fmt.Errorf("streamtest: the response names %q, no record of the batch", id)
		}
		if at < 0 || i < at {
			at = i
		}
	}
	return at, nil
}
