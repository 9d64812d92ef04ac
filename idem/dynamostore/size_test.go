package dynamostore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
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
}
