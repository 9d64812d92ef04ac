package streams_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/handler/stream/streamtest"
	"github.com/idemq/idemq/harness/internal/streams"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/testenv"
	"github.com/idemq/idemq/request"
)

const (
	motoHint   = "moto_server serves Kinesis: run under scripts/with-sqs.sh (make test does)"
	dynamoHint = "DynamoDB Local serves DynamoDB Streams: run under scripts/with-dynamodb.sh (make test does)"
)

// plan is a real-parts run's records: each key put twice (the second a
// producer's retried put, under a new sequence number), over three
// partition keys; the work of "k4" fails twice before it succeeds.
type plan struct {
	keys  []string
	fails map[string]int
}

func newPlan() plan {
	p := plan{fails: map[string]int{"k4": 2}}
	for i := range 9 {
		p.keys = append(p.keys, fmt.Sprintf("k%d", i))
	}
	return p
}

func (p plan) partition(key string) string {
	n, _ := strconv.Atoi(key[1:])
	return fmt.Sprintf("p%d", n%3)
}

// fn is the work: it counts its calls per key and fails as the plan says.
func (p plan) fn(calls *handlertest.Calls) handler.Func {
	var mu sync.Mutex
	key := handlertest.BodyField("idempotency_key")
	return calls.Func(key, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if p.fails[key(msg)] > 0 {
			p.fails[key(msg)]--
			return nil, errors.New("the provider said no")
		}
		return []byte("done " + key(msg)), nil
	})
}

func newHandler(t *testing.T, fn handler.Func, id request.Identity) *stream.Handlers {
	t.Helper()
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(store, fn, handler.WithRequest(id), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return stream.New(h)
}

// check asserts the work ran once per key (and the planned failures),
// in record order per partition key.
func (p plan) check(t *testing.T, calls *handlertest.Calls, res streamtest.Result) {
	t.Helper()
	for _, k := range p.keys {
		want := 1
		if k == "k4" {
			want = 3
		}
		if got := calls.Count(k); got != want {
			t.Errorf("%s ran %d times; want %d", k, got, want)
		}
	}
	if len(res.OnFailure) != 0 {
		t.Errorf("on failure: %+v; want none", res.OnFailure)
	}
	firsts := map[string][]string{} // partition key → keys in the order of their first runs
	seen := map[string]bool{}
	for _, k := range calls.Order() {
		if !seen[k] {
			seen[k] = true
			firsts[p.partition(k)] = append(firsts[p.partition(k)], k)
		}
	}
	for pk, got := range firsts {
		want := slices.DeleteFunc(slices.Clone(p.keys), func(k string) bool { return p.partition(k) != pk })
		if !slices.Equal(got, want) {
			t.Errorf("partition %s: first runs %v; want the records' order %v", pk, got, want)
		}
	}
}

// logged wraps a stream handler, logging each invocation's sequence
// numbers.
func logged[E any, R any](h func(context.Context, E) (R, error), seqs func(E) []string, log *[][]string) func(context.Context, E) (R, error) {
	return func(ctx context.Context, e E) (R, error) {
		*log = append(*log, seqs(e))
		return h(ctx, e)
	}
}

// checkRetry asserts that some invocation came again from a checkpoint
// inside an earlier batch: the records before it were sent once.
func checkRetry(t *testing.T, batches [][]string, all []string) {
	t.Helper()
	sent := map[string]int{}
	for _, b := range batches {
		for _, s := range b {
			sent[s]++
		}
	}
	resumed := false
	for i := 1; i < len(batches); i++ {
		prev, cur := batches[i-1], batches[i]
		if j := slices.Index(prev, cur[0]); j > 0 {
			resumed = true
			for _, s := range prev[:j] {
				if sent[s] != 1 {
					t.Errorf("record %s, before the checkpoint at %s, was sent %d times", s, cur[0], sent[s])
				}
			}
		}
	}
	if !resumed {
		t.Errorf("no invocation resumed from a record inside the batch before it: %v", batches)
	}
	for _, s := range all {
		if sent[s] == 0 {
			t.Errorf("record %s was never sent", s)
		}
	}
}

func TestKinesisOnMoto(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	endpoint := testenv.ServerURL(t, testenv.SQSEndpoint, motoHint)
	c := streams.NewKinesisClient(endpoint)
	shards, err := streams.CreateKinesisStream(ctx, c, "idemq-streams-"+dynamotest.Suffix(), 1)
	if err != nil {
		testenv.Unavailable(t, err.Error(), motoHint)
	}
	shard := shards[0]
	t.Cleanup(func() {
		_, _ = c.DeleteStream(context.Background(), &kinesis.DeleteStreamInput{StreamName: aws.String(shard.StreamName)})
	})
	p := newPlan()
	var seqs []string
	var data [][]byte
	before := time.Now().Add(-time.Second)
	// k0..k5 are put again after every key's first put; k6..k8 twice in
	// a row.
	for round := range 2 {
		for _, k := range p.keys {
			late := k <= "k5"
			if round == 1 && !late {
				continue
			}
			for range 1 + boolInt(round == 0 && !late) {
				d := fmt.Appendf(nil, `{"idempotency_key":%q}`, k)
				out, err := c.PutRecord(ctx, &kinesis.PutRecordInput{StreamName: aws.String(shard.StreamName), PartitionKey: aws.String(p.partition(k)), Data: d})
				if err != nil {
					t.Fatal(err)
				}
				seqs, data = append(seqs, aws.ToString(out.SequenceNumber)), append(data, d)
			}
		}
	}

	// The records as Lambda hands them over.
	recs, err := shard.Read(ctx, "", 3)
	if err != nil || len(recs) != 3 {
		t.Fatalf("Read: %d records, %v", len(recs), err)
	}
	for i, r := range recs {
		k := r.Kinesis
		if r.EventSource != "aws:kinesis" || r.EventName != "aws:kinesis:record" || r.EventVersion != "1.0" || r.AwsRegion != streams.Region ||
			r.EventSourceArn != shard.StreamARN || r.EventID != shard.ShardID+":"+seqs[i] || r.InvokeIdentityArn == "" ||
			k.SequenceNumber != seqs[i] || string(k.Data) != string(data[i]) || k.PartitionKey != p.partition(p.keys[i]) ||
			k.KinesisSchemaVersion != "1.0" || k.ApproximateArrivalTimestamp.Before(before) {
			t.Errorf("record %d: %+v; want put %s with %s", i, r, seqs[i], data[i])
		}
	}
	if next, err := shard.Read(ctx, seqs[1], 1); err != nil || len(next) != 1 || next[0].Kinesis.SequenceNumber != seqs[2] {
		t.Errorf("Read after %s: %+v, %v; want %s", seqs[1], next, err, seqs[2])
	}

	var calls handlertest.Calls
	var batches [][]string
	h := logged(newHandler(t, p.fn(&calls), request.Identity{Namespace: "streams"}).Kinesis, func(e events.KinesisEvent) []string {
		var s []string
		for _, r := range e.Records {
			s = append(s, r.Kinesis.SequenceNumber)
		}
		return s
	}, &batches)
	res, err := streamtest.Drain(ctx, shard, h, streamtest.Mapping{BatchSize: 5, MaximumRetryAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	p.check(t, &calls, res)
	checkRetry(t, batches, seqs)
	if res.Checkpoint != seqs[len(seqs)-1] {
		t.Errorf("checkpoint %s; want the last record's, %s", res.Checkpoint, seqs[len(seqs)-1])
	}
	t.Logf("%d records, %d invocations: %v", len(seqs), res.Invocations, batches)
}

func TestDynamoDBStreamOnDynamoDBLocal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	endpoint := testenv.ServerURL(t, dynamotest.EndpointEnv, dynamoHint)
	db, sc := streams.NewDynamoDBClients(endpoint)
	table := "idemq-streams-" + dynamotest.Suffix()
	shard, err := streams.CreateTableStream(ctx, db, sc, table)
	if err != nil {
		testenv.Unavailable(t, err.Error(), dynamoHint)
	}
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	p := newPlan()
	// Each key's change is written twice (the writer's retry: a new
	// stream record, its put counter changed), to the item of its
	// partition key, which holds the key of its latest change.
	puts := 0
	for round := range 2 {
		for _, k := range p.keys {
			puts++
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]ddbtypes.AttributeValue{
				"pk":              &ddbtypes.AttributeValueMemberS{Value: p.partition(k)},
				"idempotency_key": &ddbtypes.AttributeValueMemberS{Value: k},
				"put":             &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(puts)},
				"round":           &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(round)},
			}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, err := shard.Read(ctx, "", 100)
	if err != nil || len(recs) != puts {
		t.Fatalf("Read: %d records, %v; want %d", len(recs), err, puts)
	}
	first := recs[0]
	if first.EventName != "INSERT" || first.EventSource != "aws:dynamodb" || first.EventSourceArn != shard.StreamARN || first.AWSRegion == "" ||
		first.EventID == "" || first.EventVersion == "" || first.Change.StreamViewType != "NEW_AND_OLD_IMAGES" || first.Change.SizeBytes <= 0 ||
		first.Change.Keys["pk"].String() != "p0" || first.Change.NewImage["idempotency_key"].String() != "k0" || first.Change.OldImage != nil ||
		first.Change.ApproximateCreationDateTime.IsZero() {
		t.Errorf("first record: %+v", first)
	}
	if r := recs[3]; r.EventName != "MODIFY" || r.Change.OldImage["idempotency_key"].String() != "k0" || r.Change.NewImage["idempotency_key"].String() != "k3" {
		t.Errorf("fourth record (p0's second change): %+v; want MODIFY from k0 to k3", r)
	}
	var seqs []string
	for _, r := range recs {
		seqs = append(seqs, r.Change.SequenceNumber)
	}

	// The writer's retry changed its put counter: the payload check reads
	// the request's own fields only.
	id := request.Identity{Namespace: "streams", FingerprintFields: []string{"idempotency_key", "pk"}}
	var calls handlertest.Calls
	var batches [][]string
	h := logged(newHandler(t, p.fn(&calls), id).DynamoDB, func(e events.DynamoDBEvent) []string {
		var s []string
		for _, r := range e.Records {
			s = append(s, r.Change.SequenceNumber)
		}
		return s
	}, &batches)
	res, err := streamtest.Drain(ctx, shard, h, streamtest.Mapping{BatchSize: 5, MaximumRetryAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	p.check(t, &calls, res)
	checkRetry(t, batches, seqs)
	t.Logf("%d records, %d invocations: %v", len(seqs), res.Invocations, batches)
}

// Every DynamoDB type reaches the function's event as the stream wrote
// it.
func TestDynamoDBStreamAttributeTypes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	endpoint := testenv.ServerURL(t, dynamotest.EndpointEnv, dynamoHint)
	db, sc := streams.NewDynamoDBClients(endpoint)
	table := "idemq-streams-types-" + dynamotest.Suffix()
	shard, err := streams.CreateTableStream(ctx, db, sc, table)
	if err != nil {
		testenv.Unavailable(t, err.Error(), dynamoHint)
	}
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	item := map[string]ddbtypes.AttributeValue{
		"pk":   &ddbtypes.AttributeValueMemberS{Value: "item"},
		"n":    &ddbtypes.AttributeValueMemberN{Value: "12345678901234567890.5"},
		"b":    &ddbtypes.AttributeValueMemberB{Value: []byte{0, 1, 2}},
		"t":    &ddbtypes.AttributeValueMemberBOOL{Value: true},
		"none": &ddbtypes.AttributeValueMemberNULL{Value: true},
		"ss":   &ddbtypes.AttributeValueMemberSS{Value: []string{"x"}},
		"ns":   &ddbtypes.AttributeValueMemberNS{Value: []string{"7"}},
		"bs":   &ddbtypes.AttributeValueMemberBS{Value: [][]byte{{9}}},
		"l":    &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{&ddbtypes.AttributeValueMemberS{Value: "e"}}},
		"m":    &ddbtypes.AttributeValueMemberM{Value: map[string]ddbtypes.AttributeValue{"in": &ddbtypes.AttributeValueMemberN{Value: "1"}}},
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]ddbtypes.AttributeValue{"pk": item["pk"]}}); err != nil {
		t.Fatal(err)
	}
	recs, err := shard.Read(ctx, "", 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("Read: %d records, %v", len(recs), err)
	}
	img := recs[0].Change.NewImage
	if img["n"].Number() != "12345678901234567890.5" || string(img["b"].Binary()) != "\x00\x01\x02" || !img["t"].Boolean() || !img["none"].IsNull() ||
		!slices.Equal(img["ss"].StringSet(), []string{"x"}) || !slices.Equal(img["ns"].NumberSet(), []string{"7"}) || string(img["bs"].BinarySet()[0]) != "\x09" ||
		img["l"].List()[0].String() != "e" || img["m"].Map()["in"].Number() != "1" {
		t.Errorf("new image: %+v", img)
	}
	if r := recs[1]; r.EventName != "REMOVE" || r.Change.NewImage != nil || r.Change.OldImage["pk"].String() != "item" {
		t.Errorf("the delete's record: %+v; want REMOVE with the old image", r)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
