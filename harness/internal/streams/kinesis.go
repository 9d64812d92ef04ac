package streams

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// KinesisShard reads one shard of a Kinesis data stream: a
// streamtest.Reader.
type KinesisShard struct {
	Client     *kinesis.Client
	StreamName string // what the reader names the stream by (moto's iterators do not keep a stream named by its ARN)
	StreamARN  string
	ShardID    string
}

// emptyReads bounds how many empty GetRecords answers a Read follows
// while the stream says records lie behind (MillisBehindLatest > 0).
const emptyReads = 20

// Read returns up to max records after the one with sequence number after
// ("": TRIM_HORIZON), as Lambda hands them to a function.
func (s KinesisShard) Read(ctx context.Context, after string, max int) ([]events.KinesisEventRecord, error) {
	in := &kinesis.GetShardIteratorInput{StreamName: aws.String(s.StreamName), ShardId: aws.String(s.ShardID), ShardIteratorType: types.ShardIteratorTypeTrimHorizon}
	if after != "" {
		in.ShardIteratorType, in.StartingSequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(after)
	}
	it, err := s.Client.GetShardIterator(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("streams: GetShardIterator: %w", err)
	}
	iterator := it.ShardIterator
	for range emptyReads {
		if iterator == nil {
			return nil, nil // a closed shard, read to its end
		}
		out, err := s.Client.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: iterator, Limit: aws.Int32(int32(min(max, 10000)))})
		if err != nil {
			return nil, fmt.Errorf("streams: GetRecords: %w", err)
		}
		if len(out.Records) > 0 {
			recs := make([]events.KinesisEventRecord, len(out.Records))
			for i, r := range out.Records {
				recs[i] = s.record(r)
			}
			return recs, nil
		}
		if out.MillisBehindLatest == nil || *out.MillisBehindLatest == 0 {
			return nil, nil
		}
		iterator = out.NextShardIterator
	}
	return nil, errors.New("streams: GetRecords answered empty while records lay behind, too often")
}

// record is r as Lambda hands it to a function: the event's fields from
// the stream (its ARN and region), the shard (eventID is the shard's id
// and the sequence number) and the record; encryptionType only when the
// record is encrypted (AWS's sample event has none; aws-lambda-go's type
// leaves it out when empty).
func (s KinesisShard) record(r types.Record) events.KinesisEventRecord {
	seq := aws.ToString(r.SequenceNumber)
	var arrived time.Time
	if r.ApproximateArrivalTimestamp != nil {
		arrived = *r.ApproximateArrivalTimestamp
	}
	enc := ""
	if r.EncryptionType != "" && r.EncryptionType != types.EncryptionTypeNone {
		enc = string(r.EncryptionType)
	}
	return events.KinesisEventRecord{
		AwsRegion:         Region,
		EventID:           s.ShardID + ":" + seq,
		EventName:         "aws:kinesis:record",
		EventSource:       "aws:kinesis",
		EventSourceArn:    s.StreamARN,
		EventVersion:      "1.0",
		InvokeIdentityArn: invokeIdentity,
		Kinesis: events.KinesisRecord{
			ApproximateArrivalTimestamp: events.SecondsEpochTime{Time: arrived},
			Data:                        r.Data,
			EncryptionType:              enc,
			PartitionKey:                aws.ToString(r.PartitionKey),
			SequenceNumber:              seq,
			KinesisSchemaVersion:        "1.0",
		},
	}
}

// CreateKinesisStream creates a stream of shards shards, waits until it
// is active, and returns a reader of each shard, in the order the stream
// lists them.
func CreateKinesisStream(ctx context.Context, c *kinesis.Client, name string, shards int) ([]KinesisShard, error) {
	if _, err := c.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: aws.String(name), ShardCount: aws.Int32(int32(shards))}); err != nil {
		return nil, fmt.Errorf("streams: CreateStream %s: %w", name, err)
	}
	for range 100 {
		out, err := c.DescribeStream(ctx, &kinesis.DescribeStreamInput{StreamName: aws.String(name)})
		if err != nil {
			return nil, fmt.Errorf("streams: DescribeStream %s: %w", name, err)
		}
		d := out.StreamDescription
		if d.StreamStatus == types.StreamStatusActive {
			var out []KinesisShard
			for _, sh := range d.Shards {
				out = append(out, KinesisShard{Client: c, StreamName: name, StreamARN: aws.ToString(d.StreamARN), ShardID: aws.ToString(sh.ShardId)})
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("streams: stream %s not active after 5 s", name)
}
