package streams

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TableStream reads one shard of a DynamoDB table's stream: a
// streamtest.Reader.
type TableStream struct {
	Client    *dynamodbstreams.Client
	StreamARN string
	ShardID   string
}

// Read returns up to max records after the one with sequence number after
// ("": TRIM_HORIZON), as Lambda hands them to a function. DynamoDB Local
// now and then refuses a read from a fresh iterator with
// TrimmedDataAccessException while the shard's records are all there
// (seen under load, at TRIM_HORIZON): Read asks again with a new
// iterator, a few times.
func (s TableStream) Read(ctx context.Context, after string, max int) ([]events.DynamoDBEventRecord, error) {
	var err error
	for range trimmedRetries {
		var recs []events.DynamoDBEventRecord
		if recs, err = s.read(ctx, after, max); !errors.As(err, new(*types.TrimmedDataAccessException)) {
			return recs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil, err
}

// trimmedRetries is how many times Read asks for a shard's records that
// DynamoDB Local said were trimmed.
const trimmedRetries = 5

func (s TableStream) read(ctx context.Context, after string, max int) ([]events.DynamoDBEventRecord, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.StreamARN), ShardId: aws.String(s.ShardID), ShardIteratorType: types.ShardIteratorTypeTrimHorizon}
	if after != "" {
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(after)
	}
	it, err := s.Client.GetShardIterator(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("streams: GetShardIterator: %w", err)
	}
	if it.ShardIterator == nil {
		return nil, nil
	}
	out, err := s.Client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(int32(min(max, 1000)))})
	if err != nil {
		return nil, fmt.Errorf("streams: GetRecords: %w", err)
	}
	recs := make([]events.DynamoDBEventRecord, 0, len(out.Records))
	for _, r := range out.Records {
		rec, err := tableRecord(s.StreamARN, r)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// CreateTableStream creates a table keyed by the string attribute pk with
// a NEW_AND_OLD_IMAGES stream, and returns the reader of its stream's
// shard: the only one, or an error.
func CreateTableStream(ctx context.Context, db *dynamodb.Client, c *dynamodbstreams.Client, table string) (TableStream, error) {
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		return TableStream{}, fmt.Errorf("streams: CreateTable %s: %w", table, err)
	}
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	for range 100 {
		d, err := c.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		if err != nil {
			return TableStream{}, fmt.Errorf("streams: DescribeStream %s: %w", arn, err)
		}
		if desc := d.StreamDescription; desc.StreamStatus == types.StreamStatusEnabled && len(desc.Shards) > 0 {
			if len(desc.Shards) != 1 {
				return TableStream{}, fmt.Errorf("streams: the stream of %s has %d shards; the reader follows one", table, len(desc.Shards))
			}
			return TableStream{Client: c, StreamARN: arn, ShardID: aws.ToString(desc.Shards[0].ShardId)}, nil
		}
		select {
		case <-ctx.Done():
			return TableStream{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return TableStream{}, fmt.Errorf("streams: the stream of %s not enabled after 5 s", table)
}
