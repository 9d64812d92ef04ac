package dynamostore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// put is a staged write of a side item in the bundle's table.
func (b *bundle) put(id string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(b.table),
		Item: map[string]types.AttributeValue{
			"id":   &types.AttributeValueMemberS{Value: id},
			"note": &types.AttributeValueMemberS{Value: "written with the result"},
		},
	}}
}

func TestWritesCommitWithTheResult(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r, err := idem.Do(context.Background(), b.store, "tx#1", "", func(ctx context.Context) ([]byte, error) {
		if err := dynamostore.Stage(ctx, b.put("side#1")); err != nil {
			return nil, err
		}
		return []byte("done"), dynamostore.Stage(ctx, b.put("side#2"))
	})
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("do: %+v, %v", r, err)
	}
	wantCalls(t, "do with writes", b.api.take(), map[string]int{"PutItem": 1, "TransactWriteItems": 1})
	for _, id := range []string{"side#1", "side#2"} {
		if b.rawItem(t, "id", id) == nil {
			t.Errorf("%s was not written", id)
		}
	}
	rec, ok, err := b.store.Get(context.Background(), "tx#1")
	if err != nil || !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != "done" {
		t.Fatalf("record %+v, %v, %v; want it COMPLETED with the result", rec, ok, err)
	}
}

// A worker whose lease was taken over writes neither its result nor its
// staged writes.
func TestStaleOwnerWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, stale := b.claim(t, "tx#stale", b.now, time.Second, time.Hour)
	c, fresh := b.claim(t, "tx#stale", b.now.Add(2*time.Second), time.Minute, time.Hour)
	if !c.Claimed || c.Previous == nil {
		t.Fatalf("take-over: %+v", c)
	}
	err := b.store.Complete(ctx, idem.Completion{Key: "tx#stale", Owner: stale, Result: []byte("stale"), ExpiresAt: b.now.Add(time.Hour),
		Writes: []any{b.put("side#stale")}})
	if !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("stale complete: %v, want idem.ErrLeaseLost", err)
	}
	t.Log(err)
	if b.rawItem(t, "id", "side#stale") != nil {
		t.Error("the stale owner's staged write was committed")
	}
	rec, _, _ := b.store.Get(ctx, "tx#stale")
	if rec.Status != idem.StatusInProgress || rec.Owner != fresh {
		t.Errorf("record %+v, want it IN_PROGRESS under the new owner", rec)
	}
}

// A staged write whose own condition fails cancels the completion: the
// record stays claimed (so Do releases it), and the error names the write.
func TestFailedWriteCancelsCompletion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	owner := b.mustClaim(t, "tx#cond")
	guarded := b.put("side#guarded")
	guarded.Put.ConditionExpression = aws.String("attribute_exists(id)")
	err := b.store.Complete(ctx, idem.Completion{Key: "tx#cond", Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour),
		Writes: []any{b.put("side#ok"), guarded}})
	var cancelled *types.TransactionCanceledException
	if err == nil || errors.Is(err, idem.ErrLeaseLost) || !errors.As(err, &cancelled) {
		t.Fatalf("err %v, want the cancellation, not a lost lease", err)
	}
	t.Log(err)
	if r := cancelled.CancellationReasons; len(r) != 3 || aws.ToString(r[2].Code) != "ConditionalCheckFailed" {
		t.Errorf("cancellation reasons %+v, want the second staged write's condition", r)
	}
	if b.rawItem(t, "id", "side#ok") != nil {
		t.Error("a write of a cancelled transaction was committed")
	}
	if err := b.store.Release(ctx, "tx#cond", owner); err != nil {
		t.Fatalf("the claim is no longer the owner's: %v", err)
	}
}

func TestMaxWrites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	owner := b.mustClaim(t, "tx#max")
	writes := make([]any, dynamostore.MaxWrites+1)
	for i := range writes {
		writes[i] = b.put(fmt.Sprintf("side#%d", i))
	}
	b.api.take()
	err := b.store.Complete(ctx, idem.Completion{Key: "tx#max", Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour), Writes: writes})
	if !errors.Is(err, idem.ErrUnsupportedWrite) {
		t.Fatalf("%d writes: err %v, want idem.ErrUnsupportedWrite", len(writes), err)
	}
	wantCalls(t, "too many writes", b.api.take(), map[string]int{})
	if err := b.store.Complete(ctx, idem.Completion{Key: "tx#max", Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour), Writes: writes[:dynamostore.MaxWrites]}); err != nil {
		t.Fatalf("%d writes: %v", dynamostore.MaxWrites, err)
	}
	if b.rawItem(t, "id", fmt.Sprintf("side#%d", dynamostore.MaxWrites-1)) == nil {
		t.Error("the last write was not committed")
	}
}

func TestUnsupportedWrite(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	put := b.put("side#1")
	for name, w := range map[string]any{
		"string":  "PUT side#1",
		"pointer": &put,
		"put":     types.Put{TableName: aws.String(b.table)},
		"nil":     nil,
	} {
		key := idem.Key("tx#" + name)
		owner := b.mustClaim(t, key)
		b.api.take()
		err := b.store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour),
			Writes: []any{b.put("side#" + name), w}})
		if !errors.Is(err, idem.ErrUnsupportedWrite) {
			t.Errorf("%s: err %v, want idem.ErrUnsupportedWrite", name, err)
		}
		wantCalls(t, name, b.api.take(), map[string]int{})
		if err := b.store.Release(ctx, key, owner); err != nil {
			t.Errorf("%s: the claim is no longer the owner's: %v", name, err)
		}
	}
}
