package streamtest

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Record is a stream record as Lambda hands it to a function: a Kinesis
// data stream's or a DynamoDB table stream's.
type Record interface {
	events.KinesisEventRecord | events.DynamoDBEventRecord
}

// Reader reads a shard in order. Drain reads through it, so the same
// driver runs over the in-memory Shard and over a real stream's shard.
type Reader[R Record] interface {
	// Read returns up to max records of the shard, in order, starting
	// after the record whose sequence number is after ("": from the
	// shard's oldest record, TRIM_HORIZON); none when the shard has no
	// more.
	Read(ctx context.Context, after string, max int) ([]R, error)
}

// sequence is a record's sequence number.
func sequence[R Record](r R) string {
	switch r := any(r).(type) {
	case events.KinesisEventRecord:
		return r.Kinesis.SequenceNumber
	case events.DynamoDBEventRecord:
		return r.Change.SequenceNumber
	}
	return ""
}

// arrival is when a record entered the stream (Kinesis:
// ApproximateArrivalTimestamp; DynamoDB Streams:
// ApproximateCreationDateTime).
func arrival[R Record](r R) time.Time {
	switch r := any(r).(type) {
	case events.KinesisEventRecord:
		return r.Kinesis.ApproximateArrivalTimestamp.Time
	case events.DynamoDBEventRecord:
		return r.Change.ApproximateCreationDateTime.Time
	}
	return time.Time{}
}
