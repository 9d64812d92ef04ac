package dynamostore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// conflicts are DynamoDB's refusal of a write that another Region was
// modifying (multi-Region strong consistency), as the pinned SDK types it
// and as any API error with its code. DynamoDB Local has no global
// tables: this is checked against fakes only.
var conflicts = map[string]error{
	"typed":   &types.ReplicatedWriteConflictException{Message: aws.String("One or more items in this request are being modified by a request in another Region")},
	"untyped": &smithy.GenericAPIError{Code: "ReplicatedWriteConflictException", Message: "being modified in another Region"},
}

// Every write the store sends maps the conflict to idem.ErrWriteConflict:
// a request not applied, which may be sent again; never a lost lease,
// throttling, or a claim.
func TestWriteConflictEveryOperation(t *testing.T) {
	t.Parallel()
	for name, cause := range conflicts {
		for _, op := range []string{"claim", "complete", "complete with writes", "release", "extend", "delete"} {
			t.Run(name+"/"+op, func(t *testing.T) {
				t.Parallel()
				err := ops[op](must(dynamostore.New(&fakeAPI{err: cause}, "t")))
				if !errors.Is(err, idem.ErrWriteConflict) || !idem.Retryable(err) {
					t.Fatalf("err %v (retryable %v), want idem.ErrWriteConflict, retryable", err, idem.Retryable(err))
				}
				if errors.Is(err, idem.ErrLeaseLost) || errors.Is(err, dynamostore.ErrThrottled) || errors.Is(err, idem.ErrResultTooLarge) {
					t.Fatalf("err %v is taken for something else", err)
				}
				wantWrapped(t, err, cause)
			})
		}
	}
}

// scriptedAPI applies nothing: each write succeeds, or answers err when
// its operation is in conflict. It counts the requests by operation.
type scriptedAPI struct {
	fakeAPI
	conflict map[string]bool
	err      error
	mu       sync.Mutex
	sent     map[string]int
}

func (a *scriptedAPI) answer(op string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sent == nil {
		a.sent = map[string]int{}
	}
	a.sent[op]++
	if a.conflict[op] {
		return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: a.err}
	}
	return nil
}

func (a *scriptedAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := a.answer("PutItem"); err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{}, nil
}

func (a *scriptedAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := a.answer("UpdateItem"); err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemOutput{}, nil
}

func (a *scriptedAPI) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := a.answer("DeleteItem"); err != nil {
		return nil, err
	}
	return &dynamodb.DeleteItemOutput{}, nil
}

// Through idem.Do: a claim answered with the conflict is another claimant
// (InProgress; the work does not run, nothing more is sent); a completion
// answered with it is not stored (NotStored), and the claim is released.
func TestDoOverWriteConflicts(t *testing.T) {
	t.Parallel()
	for name, cause := range conflicts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			api := &scriptedAPI{conflict: map[string]bool{"PutItem": true}, err: cause}
			r, err := idem.Do(context.Background(), must(dynamostore.New(api, "t")), "k#1", "", func(context.Context) ([]byte, error) {
				t.Error("the work ran on a claim answered with a conflict")
				return nil, nil
			})
			if err != nil || r.Outcome != idem.InProgress || !r.LeaseUntil.IsZero() {
				t.Fatalf("claim in conflict: %+v, %v; want InProgress, no lease", r, err)
			}
			if api.sent["PutItem"] != 1 || len(api.sent) != 1 {
				t.Fatalf("requests %v, want one PutItem", api.sent)
			}

			api = &scriptedAPI{conflict: map[string]bool{"UpdateItem": true}, err: cause}
			r, err = idem.Do(context.Background(), must(dynamostore.New(api, "t")), "k#1", "", func(context.Context) ([]byte, error) {
				return []byte("fresh"), nil
			})
			if !errors.Is(err, idem.ErrWriteConflict) || r.Outcome != idem.NotStored {
				t.Fatalf("completion in conflict: %+v, %v; want NotStored, idem.ErrWriteConflict", r, err)
			}
			if api.sent["DeleteItem"] != 1 {
				t.Fatalf("requests %v, want the claim released", api.sent)
			}
		})
	}
}

// conflictServer answers every request with the conflict, as DynamoDB
// sends it (HTTP 400), and counts the requests by operation.
func conflictServer(t *testing.T) (url string, sent func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		mu.Lock()
		counts[op]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ReplicatedWriteConflictException","message":"One or more items in this request are being modified by a request in another Region"}`))
	}))
	t.Cleanup(server.Close)
	return server.URL, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		c := map[string]int{}
		for k, v := range counts {
			c[k] = v
		}
		return c
	}
}

// What the SDK's standard retryer does with the conflict, through a real
// client: on its own it sends a request once (a 400 whose code it does
// not know), so the claim is sent once; the store has the fenced writes
// sent again within their attempts: the completion CompleteAttempts times,
// a release or an extension as often as the client's retryer says. A
// client that retries nothing sends each once.
func TestWriteConflictRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		attempts int // the client's retryer's
		want     map[string]int
	}{
		{"the SDK's standard retryer", retry.DefaultMaxAttempts, map[string]int{"PutItem": 1, "complete": dynamostore.CompleteAttempts, "DeleteItem": 3, "extend": 3}},
		{"a client that retries nothing", 1, map[string]int{"PutItem": 1, "complete": 1, "DeleteItem": 1, "extend": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, sent := conflictServer(t)
			client := dynamodb.New(dynamodb.Options{
				Region: "us-east-1", BaseEndpoint: aws.String(url),
				Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
				Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
					o.MaxAttempts = tc.attempts
					o.RateLimiter = ratelimit.None
					o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				}),
			})
			store := must(dynamostore.New(client, "t"))
			now := time.Now()
			ctx := context.Background()
			var typed *types.ReplicatedWriteConflictException
			got := map[string]int{}
			for _, step := range []struct {
				name, op string
				run      func() error
			}{
				{"PutItem", "PutItem", func() error {
					_, err := store.Claim(ctx, idem.ClaimRequest{Key: "k#1", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
					return err
				}},
				{"complete", "UpdateItem", func() error {
					return store.Complete(ctx, idem.Completion{Key: "k#1", Owner: "o", Result: []byte("r"), ExpiresAt: now.Add(time.Hour)})
				}},
				{"DeleteItem", "DeleteItem", func() error { return store.Release(ctx, "k#1", "o") }},
				{"extend", "UpdateItem", func() error {
					return store.Extend(ctx, idem.Extension{Key: "k#1", Owner: "o", LeaseUntil: now.Add(time.Minute)})
				}},
			} {
				before := sent()[step.op]
				err := step.run()
				if !errors.Is(err, idem.ErrWriteConflict) || !errors.As(err, &typed) {
					t.Fatalf("%s: %v; want idem.ErrWriteConflict wrapping *types.ReplicatedWriteConflictException", step.name, err)
				}
				got[step.name] = sent()[step.op] - before
			}
			for step, n := range tc.want {
				if got[step] != n {
					t.Errorf("%s sent %d times, want %d (all: %v)", step, got[step], n, got)
				}
			}
		})
	}
}
