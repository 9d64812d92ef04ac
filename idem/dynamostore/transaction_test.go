package dynamostore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// okAPI answers every write with success, writing nothing.
type okAPI struct{ dynamostore.API }

func (okAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return &dynamodb.PutItemOutput{}, nil
}

func (okAPI) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return &dynamodb.DeleteItemOutput{}, nil
}

func (okAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// tokenAPI records the ClientRequestToken of every transaction and
// refuses the first one as DynamoDB refuses an item over 400 KB; every
// other request succeeds.
type tokenAPI struct {
	okAPI
	mu     sync.Mutex
	tokens []string
}

func (a *tokenAPI) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = append(a.tokens, aws.ToString(in.ClientRequestToken))
	if len(a.tokens) == 1 {
		return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "Item size has exceeded the maximum allowed size"}
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// The completion without the result goes under a request token of its
// own: DynamoDB keeps a token for ten minutes with the request it came
// with, and answers another request under it with
// IdempotentParameterMismatch. A retry of either completion reuses its
// token, so DynamoDB recognises it.
func TestOmittedCompletionHasItsOwnToken(t *testing.T) {
	t.Parallel()
	api := &tokenAPI{}
	store := must(dynamostore.New(api, "t"))
	side := sideWrite()
	res, err := idem.Do(context.Background(), store, "ns#k", "", func(ctx context.Context) ([]byte, error) {
		return []byte("result"), idem.Stage(ctx, side)
	})
	if !errors.Is(err, idem.ErrResultTooLarge) || !res.Omitted {
		t.Fatalf("Do: omitted %v, err %v; want the key settled without the result", res.Omitted, err)
	}
	if len(api.tokens) != 2 {
		t.Fatalf("%d transactions, want 2 (the refused completion, the one without the result)", len(api.tokens))
	}
	if api.tokens[0] == "" || api.tokens[1] == "" || api.tokens[0] == api.tokens[1] {
		t.Errorf("tokens %q: want two different, non-empty tokens", api.tokens)
	}
	if len(api.tokens[1]) > 36 {
		t.Errorf("token %q is longer than DynamoDB's 36 characters", api.tokens[1])
	}

	c := idem.Completion{Key: "ns#k2", Owner: "0123456789abcdef0123456789abcdef", OmittedBytes: 500_000,
		ExpiresAt: time.Now().Add(time.Hour), Writes: []any{side}}
	for range 2 {
		if err := store.Complete(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(api.tokens); api.tokens[n-1] != api.tokens[n-2] || api.tokens[n-1] == c.Owner {
		t.Errorf("a completion without its result sent twice: tokens %q, %q; want the same both times, not the owner",
			api.tokens[n-2], api.tokens[n-1])
	}
}

// A staged write whose item is over 400 KB is refused before anything is
// sent, as itself (ErrWriteTooLarge), not as a result too large: the key is
// not settled without its writes, and the claim is released.
func TestStagedWriteTooLarge(t *testing.T) {
	t.Parallel()
	api := &countingAPI{API: okAPI{}}
	store := must(dynamostore.New(api, "t"))
	big := types.TransactWriteItem{Put: &types.Put{TableName: aws.String("side"), Item: map[string]types.AttributeValue{
		"id":   &types.AttributeValueMemberS{Value: "s"},
		"body": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"text": &types.AttributeValueMemberS{Value: string(make([]byte, dynamostore.MaxItemBytes))}}},
	}}}
	runs := 0
	res, err := idem.Do(context.Background(), store, "ns#k", "", func(ctx context.Context) ([]byte, error) {
		runs++
		return []byte("small"), idem.Stage(ctx, big)
	})
	if !errors.Is(err, dynamostore.ErrWriteTooLarge) || errors.Is(err, idem.ErrResultTooLarge) || res.Omitted {
		t.Fatalf("Do: omitted %v, err %v; want dynamostore.ErrWriteTooLarge and the key not settled", res.Omitted, err)
	}
	if want := map[string]int{"PutItem": 1, "DeleteItem": 1}; runs != 1 || api.calls["PutItem"] != want["PutItem"] ||
		api.calls["DeleteItem"] != want["DeleteItem"] || api.calls["TransactWriteItems"] != 0 {
		t.Errorf("runs %d, requests %v; want 1 run, the claim, its release, and no transaction", runs, api.calls)
	}

	// An item under the limit goes through.
	small := types.TransactWriteItem{Put: &types.Put{TableName: aws.String("side"), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: string(make([]byte, dynamostore.MaxItemBytes-100))}}}}
	if _, err := idem.Do(context.Background(), store, "ns#k2", "", func(ctx context.Context) ([]byte, error) {
		return nil, idem.Stage(ctx, small)
	}); err != nil {
		t.Errorf("a staged write just under the limit: %v", err)
	}
}

// optsAPI keeps the per-request options of every completion.
type optsAPI struct {
	okAPI
	mu   sync.Mutex
	opts [][]func(*dynamodb.Options)
}

func (a *optsAPI) UpdateItem(_ context.Context, _ *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts = append(a.opts, o)
	return &dynamodb.UpdateItemOutput{}, nil
}

func (a *optsAPI) TransactWriteItems(_ context.Context, _ *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts = append(a.opts, o)
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// A completion is sent up to CompleteAttempts times where the client
// retries fewer; a client that retries more, or not at all, keeps its own.
func TestCompletionPersists(t *testing.T) {
	t.Parallel()
	api := &optsAPI{}
	store := must(dynamostore.New(api, "t"))
	side := sideWrite()
	for _, c := range []idem.Completion{
		{Key: "ns#1", Owner: "o", ExpiresAt: time.Now().Add(time.Hour)},
		{Key: "ns#2", Owner: "o", ExpiresAt: time.Now().Add(time.Hour), Writes: []any{side}},
	} {
		if err := store.Complete(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	attempts := func(opts []func(*dynamodb.Options), r aws.Retryer) int {
		o := dynamodb.Options{Retryer: r}
		for _, f := range opts {
			f(&o)
		}
		if o.RetryMaxAttempts == 0 {
			return r.MaxAttempts()
		}
		return o.RetryMaxAttempts
	}
	for i, opts := range api.opts {
		if n := attempts(opts, retry.NewStandard()); n != dynamostore.CompleteAttempts {
			t.Errorf("completion %d with the SDK's retryer: %d attempts, want %d", i, n, dynamostore.CompleteAttempts)
		}
		if n := attempts(opts, retry.AddWithMaxAttempts(retry.NewStandard(), 10)); n != 10 {
			t.Errorf("completion %d with a retryer of 10 attempts: %d, want 10", i, n)
		}
		if n := attempts(opts, retry.AddWithMaxAttempts(retry.NewStandard(), 1)); n != 1 {
			t.Errorf("completion %d without retries: %d attempts, want 1", i, n)
		}
	}
	if len(api.opts) != 2 {
		t.Fatalf("%d completions sent, want 2", len(api.opts))
	}
}

// sideWrite is a write staged with a completion: a Put to another table.
func sideWrite() types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("side"),
		Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "s"}}}}
}
