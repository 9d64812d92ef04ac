package streamtest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// The in-memory shard's identity, in the records it makes as Lambda
// does.
const (
	shardID   = "shardId-000000000000"
	streamARN = "arn:aws:kinesis:us-east-1:123456789012:stream/streamtest"
)

// Shard is an in-memory Kinesis shard: records in the order they were
// put, each under a sequence number greater than the one before, as
// Lambda hands them to a function (events.KinesisEventRecord). It keeps
// every record (no retention). The zero value is an empty shard, safe for
// use by several goroutines.
type Shard struct {
	mu      sync.Mutex
	records []events.KinesisEventRecord
}

// Put appends a record with partition key partitionKey and data, arrived
// now, and returns its sequence number. Putting the same data again is a
// new record under a new sequence number, as a producer's retried
// PutRecord is.
func (s *Shard) Put(partitionKey string, data []byte) string {
	if partitionKey == "" {
		panic("streamtest: empty partition key")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := fmt.Sprintf("%056d", len(s.records)+1)
	s.records = append(s.records, events.KinesisEventRecord{
		AwsRegion:         "us-east-1",
		EventID:           shardID + ":" + seq,
		EventName:         "aws:kinesis:record",
		EventSource:       "aws:kinesis",
		EventSourceArn:    streamARN,
		EventVersion:      "1.0",
		InvokeIdentityArn: "arn:aws:iam::123456789012:role/streamtest",
		Kinesis: events.KinesisRecord{
			ApproximateArrivalTimestamp: events.SecondsEpochTime{Time: time.Now()},
			Data:                        append([]byte(nil), data...),
			PartitionKey:                partitionKey,
			SequenceNumber:              seq,
			KinesisSchemaVersion:        "1.0",
		},
	})
	return seq
}

// Read returns up to max records after the one with sequence number
// after ("": from the first), in order. A sequence number the shard never
// gave is an error.
func (s *Shard) Read(_ context.Context, after string, max int) ([]events.KinesisEventRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := 0
	if after != "" {
		start = -1
		for i, r := range s.records {
			if r.Kinesis.SequenceNumber == after {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return nil, fmt.Errorf("streamtest: the shard has no record with sequence number %s", after)
		}
	}
	end := min(len(s.records), start+max)
	out := make([]events.KinesisEventRecord, 0, end-start)
	for _, r := range s.records[start:end] {
		r.Kinesis.Data = append([]byte(nil), r.Kinesis.Data...)
		out = append(out, r)
	}
	return out, nil
}
