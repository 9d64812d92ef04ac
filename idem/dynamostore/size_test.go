package dynamostore_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/internal/storekit"
)

// The largest result the store accepts fits in a DynamoDB item; one byte
// more is refused before anything is sent, and the claim stays the
// caller's.
func TestResultSizeLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	key := idem.Key("big#" + strings.Repeat("k", idem.MaxKeyBytes-4))
	_, owner := b.claim(t, key, b.now, time.Minute, time.Hour)
	c := idem.Completion{Key: key, Owner: owner, ExpiresAt: b.now.Add(time.Hour)}
	limit := dynamostore.MaxItemBytes - dynamostore.CompletedSize(b.store, c)

	c.Result = make([]byte, limit+1)
	b.api.take()
	err := b.store.Complete(ctx, c)
	if !errors.Is(err, idem.ErrResultTooLarge) {
		t.Fatalf("%d-byte result: err %v, want idem.ErrResultTooLarge", len(c.Result), err)
	}
	wantCalls(t, "too large", b.api.take(), map[string]int{})

	c.Result = make([]byte, limit)
	if err := b.store.Complete(ctx, c); err != nil {
		t.Fatalf("%d-byte result: %v", len(c.Result), err)
	}
	rec, _, err := b.store.Get(ctx, key)
	if err != nil || len(rec.Result) != limit {
		t.Fatalf("stored %d bytes (%v), want %d", len(rec.Result), err, limit)
	}
	if limit < 400*1000-2*idem.MaxKeyBytes {
		t.Errorf("with a %d-byte key the limit is %d bytes: the size bound is too cautious", len(key), limit)
	}
}

// Were the bound wrong, DynamoDB's own refusal is ErrResultTooLarge too.
func TestResultRefusedByDynamoDB(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dynamostore.SetMaxItemBytes(b.store, 1<<30)
	ctx := context.Background()
	owner := b.mustClaim(t, "big#1")
	err := b.store.Complete(ctx, idem.Completion{Key: "big#1", Owner: owner, Result: make([]byte, dynamostore.MaxItemBytes), ExpiresAt: b.now.Add(time.Hour)})
	var api smithy.APIError
	if !errors.Is(err, idem.ErrResultTooLarge) || !errors.As(err, &api) {
		t.Fatalf("err %v, want idem.ErrResultTooLarge wrapping DynamoDB's refusal", err)
	}
	t.Log(err)
	err = b.store.Complete(ctx, idem.Completion{Key: "big#1", Owner: owner, Result: make([]byte, dynamostore.MaxItemBytes), ExpiresAt: b.now.Add(time.Hour),
		Writes: []any{b.put("side#1")}})
	if !errors.Is(err, idem.ErrResultTooLarge) {
		t.Fatalf("in a transaction: err %v, want idem.ErrResultTooLarge", err)
	}
	t.Log(err)
	if err := b.store.Release(ctx, "big#1", owner); err != nil {
		t.Fatalf("the claim is no longer the owner's: %v", err)
	}

	// Do settles the key after such a refusal of its transaction: the
	// completion without the result carries the staged write, under a
	// request token of its own.
	r, err := idem.Do(ctx, b.store, "big#2", "", func(ctx context.Context) ([]byte, error) {
		return incompressible(dynamostore.MaxItemBytes), dynamostore.Stage(ctx, b.put("side#2"))
	})
	if !errors.Is(err, idem.ErrResultTooLarge) || !r.Omitted {
		t.Fatalf("do: omitted %v, %v; want the key settled without the result", r.Omitted, err)
	}
	if rec := mustGet(t, b, "big#2"); rec.Status != idem.StatusCompleted || rec.OmittedBytes != dynamostore.MaxItemBytes {
		t.Fatalf("record %+v, want COMPLETED with the marker", rec)
	}
	if b.rawItem(t, "id", "side#2") == nil {
		t.Error("the staged write was not committed with the completion")
	}
}

// A result too large to store settles the key without it: one more
// UpdateItem leaves the size in result_omitted_bytes and no data, and a
// duplicate costs its failed claim, as any.
func TestOversizedResultSettlesTheKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const size = dynamostore.MaxItemBytes
	clock := idem.ClockFunc(func() time.Time { return b.now })
	var calls int
	result := incompressible(size)
	work := func(context.Context) ([]byte, error) {
		calls++
		return result, nil
	}
	r, err := idem.Do(ctx, b.store, "omit#1", "sha256:ab", work, func(c *idem.Config) { c.Clock = clock }, idem.WithExpiry(time.Hour))
	if !errors.Is(err, idem.ErrResultTooLarge) || r.Outcome != idem.Executed || !r.Omitted || len(r.Value) != size {
		t.Fatalf("first delivery: %s, omitted %v, %d bytes, %v; want executed, omitted, the fresh result, ErrResultTooLarge",
			r.Outcome, r.Omitted, len(r.Value), err)
	}
	// The refused completion sent nothing.
	wantCalls(t, "first delivery", b.api.take(), map[string]int{"PutItem": 1, "UpdateItem": 1})
	wantItem(t, b.rawItem(t, "id", "omit#1"), map[string]string{
		"id":                   "S:omit#1",
		"status":               "S:COMPLETED",
		"expiration":           "N:" + strconv.FormatInt(storekit.ExpirySeconds(b.now.Add(time.Hour+idem.DefaultClockSkew)), 10),
		"owner":                "S:" + mustGet(t, b, "omit#1").Owner,
		"validation":           "S:sha256:ab",
		"result_omitted_bytes": "N:" + strconv.Itoa(size),
	})
	b.api.take()

	r, err = idem.Do(ctx, b.store, "omit#1", "sha256:ab", work, func(c *idem.Config) { c.Clock = clock })
	if err != nil || r.Outcome != idem.Replayed || !r.Omitted || r.Value != nil {
		t.Fatalf("duplicate: %+v, %v; want replayed, omitted, no value", r, err)
	}
	wantCalls(t, "duplicate", b.api.take(), map[string]int{"PutItem": 1})
	if calls != 1 {
		t.Fatalf("the work ran %d times, want once", calls)
	}
}

// A COMPLETED item with neither data nor the marker (Powertools writes
// one for a function that returned nothing) is an empty stored result.
func TestCompletedWithoutDataIsEmpty(t *testing.T) {
	t.Parallel()
	r, err := replayWritten(t, "pt#1", nil)
	if err != nil || r.Outcome != idem.Replayed || r.Omitted || len(r.Value) != 0 {
		t.Fatalf("%+v, %v; want an empty result replayed, not omitted", r, err)
	}
}

// replayWritten writes a COMPLETED record for key as other code (Powertools)
// writes one, with data as its result attribute unless nil, and returns
// what idem.Do makes of it; the work must not run.
func replayWritten(t *testing.T, key idem.Key, data types.AttributeValue) (idem.Result, error) {
	t.Helper()
	b := setup(t)
	item := map[string]types.AttributeValue{
		"id":         &types.AttributeValueMemberS{Value: string(key)},
		"status":     &types.AttributeValueMemberS{Value: "COMPLETED"},
		"expiration": &types.AttributeValueMemberN{Value: strconv.FormatInt(b.now.Add(time.Hour).Unix(), 10)},
	}
	if data != nil {
		item["data"] = data
	}
	if _, err := b.client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(b.table), Item: item}); err != nil {
		t.Fatal(err)
	}
	return idem.Do(context.Background(), b.store, key, "", func(context.Context) ([]byte, error) {
		t.Error("the work ran for a completed key")
		return nil, nil
	})
}

func mustGet(t *testing.T, b *bundle, key idem.Key) idem.Record {
	t.Helper()
	rec, ok, err := b.store.Get(context.Background(), key)
	if err != nil || !ok {
		t.Fatalf("get %q: %v, %v", key, ok, err)
	}
	return rec
}

// Powertools for TypeScript stores a result that is not a string as a
// native value; it replays as its JSON, numbers as spelled.
func TestNativeResultReadsAsJSON(t *testing.T) {
	t.Parallel()
	r, err := replayWritten(t, "pt#ts", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"text":  &types.AttributeValueMemberS{Value: "hi"},
		"n":     &types.AttributeValueMemberN{Value: "1.50"},
		"ok":    &types.AttributeValueMemberBOOL{Value: true},
		"none":  &types.AttributeValueMemberNULL{Value: true},
		"tags":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a"}, &types.AttributeValueMemberN{Value: "7"}}},
		"ids":   &types.AttributeValueMemberNS{Value: []string{"3"}},
		"bytes": &types.AttributeValueMemberB{Value: []byte{1, 2}},
	}})
	const want = `{"bytes":"AQI=","ids":[3],"n":1.50,"none":null,"ok":true,"tags":["a",7],"text":"hi"}`
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != want {
		t.Fatalf("%v %q, %v; want replayed %s", r.Outcome, r.Value, err, want)
	}
}
