package streams

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/handler/stream/streamtest"
)

// kinesisSource is a Kinesis stream on moto: the producer's PutRecord
// (a re-send puts the same data again), a drain per shard.
type kinesisSource struct {
	c      *kinesis.Client
	name   string
	shards []KinesisShard
	s      *stream.Handlers
	f      *faults
}

func newKinesisSource(ctx context.Context, parts Parts, cfg Config, suffix string, s *stream.Handlers, f *faults) (*kinesisSource, error) {
	if parts.Moto == "" {
		return nil, fmt.Errorf("streams: no moto_server endpoint: run under scripts/with-sqs.sh")
	}
	c := NewKinesisClient(parts.Moto)
	name := "idemq-streams-" + suffix
	shards, err := CreateKinesisStream(ctx, c, name, cfg.Shards)
	if err != nil {
		return nil, err
	}
	return &kinesisSource{c: c, name: name, shards: shards, s: s, f: f}, nil
}

func (k *kinesisSource) put(ctx context.Context, q put, _ int) error {
	_, err := k.c.PutRecord(ctx, &kinesis.PutRecordInput{StreamName: aws.String(k.name), PartitionKey: aws.String(q.partition),
		Data: fmt.Appendf(nil, `{"idempotency_key":%q,"prompt":"summarise %s"}`, q.key, q.key)})
	if err != nil {
		return fmt.Errorf("streams: PutRecord: %w", err)
	}
	return nil
}

func (k *kinesisSource) drains() []drainFunc {
	h := kinesisFaulty(k.s, k.f)
	var out []drainFunc
	for _, sh := range k.shards {
		out = append(out, func(ctx context.Context, m streamtest.Mapping, produced <-chan struct{}) (totals, error) {
			return drainLoop(ctx, sh, h, m, produced)
		})
	}
	return out
}

func (k *kinesisSource) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = k.c.DeleteStream(ctx, &kinesis.DeleteStreamInput{StreamName: aws.String(k.name)})
}

// tableSource is a DynamoDB table's stream on DynamoDB Local: the
// producer writes each request as a change of its partition's item (a
// re-send writes it again, its write counter changed: a write that
// changes nothing makes no stream record, on DynamoDB Local as on
// DynamoDB), one drain.
type tableSource struct {
	db    *dynamodb.Client
	table string
	shard TableStream
	s     *stream.Handlers
	f     *faults
}

func newTableSource(ctx context.Context, db *dynamodb.Client, sc *dynamodbstreams.Client, suffix string, s *stream.Handlers, f *faults) (*tableSource, error) {
	table := "idemq-streams-source-" + suffix
	shard, err := CreateTableStream(ctx, db, sc, table)
	if err != nil {
		return nil, err
	}
	return &tableSource{db: db, table: table, shard: shard, s: s, f: f}, nil
}

func (t *tableSource) put(ctx context.Context, q put, n int) error {
	_, err := t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(t.table), Item: map[string]ddbtypes.AttributeValue{
		"pk":              &ddbtypes.AttributeValueMemberS{Value: q.partition},
		"idempotency_key": &ddbtypes.AttributeValueMemberS{Value: q.key},
		"prompt":          &ddbtypes.AttributeValueMemberS{Value: "summarise " + q.key},
		"write":           &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(n)},
	}})
	if err != nil {
		return fmt.Errorf("streams: PutItem: %w", err)
	}
	return nil
}

func (t *tableSource) drains() []drainFunc {
	h := tableFaulty(t.s, t.f)
	return []drainFunc{func(ctx context.Context, m streamtest.Mapping, produced <-chan struct{}) (totals, error) {
		return drainLoop(ctx, t.shard, h, m, produced)
	}}
}

func (t *tableSource) close() { deleteTable(t.db, t.table) }

func deleteTable(db *dynamodb.Client, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
}
