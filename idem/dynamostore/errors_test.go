package dynamostore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// fakeAPI answers every request with err, as the SDK returns it (wrapped in
// an *smithy.OperationError), and counts the requests.
type fakeAPI struct {
	err   error
	calls int
}

func (f *fakeAPI) fail(op string) error {
	f.calls++
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: f.err}
}

func (f *fakeAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, f.fail("PutItem")
}

func (f *fakeAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, f.fail("UpdateItem")
}

func (f *fakeAPI) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, f.fail("DeleteItem")
}

func (f *fakeAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, f.fail("TransactWriteItems")
}

func (f *fakeAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, f.fail("GetItem")
}

func (f *fakeAPI) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, f.fail("Scan")
}

func (f *fakeAPI) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, f.fail("Query")
}

// ops runs each store operation once against store.
var ops = map[string]func(s *dynamostore.Store) error{
	"claim": func(s *dynamostore.Store) error {
		now := time.Now()
		_, err := s.Claim(context.Background(), idem.ClaimRequest{Key: "k#1", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
		return err
	},
	"complete": func(s *dynamostore.Store) error {
		return s.Complete(context.Background(), idem.Completion{Key: "k#1", Owner: "o", Result: []byte("r"), ExpiresAt: time.Now()})
	},
	"complete with writes": func(s *dynamostore.Store) error {
		return s.Complete(context.Background(), idem.Completion{Key: "k#1", Owner: "o", Result: []byte("r"), ExpiresAt: time.Now(),
			Writes: []any{types.TransactWriteItem{Put: &types.Put{TableName: aws.String("t")}}}})
	},
	"release": func(s *dynamostore.Store) error { return s.Release(context.Background(), "k#1", "o") },
	"extend": func(s *dynamostore.Store) error {
		return s.Extend(context.Background(), idem.Extension{Key: "k#1", Owner: "o", LeaseUntil: time.Now()})
	},
	"get": func(s *dynamostore.Store) error {
		_, _, err := s.Get(context.Background(), "k#1")
		return err
	},
	"delete": func(s *dynamostore.Store) error {
		return s.Delete(context.Background(), idem.Deletion{Key: "k#1", Status: idem.StatusInProgress, Owner: "o"})
	},
}

func TestThrottling(t *testing.T) {
	t.Parallel()
	throttles := map[string]error{
		"ProvisionedThroughputExceededException": &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")},
		"ThrottlingException":                    &types.ThrottlingException{Message: aws.String("slow down")},
		"RequestLimitExceeded":                   &types.RequestLimitExceeded{Message: aws.String("slow down")},
		"untyped ThrottlingException":            &smithy.GenericAPIError{Code: "ThrottlingException", Message: "slow down"},
		"transaction cancelled for throttling": &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
			{Code: aws.String("None")}, {Code: aws.String("ThrottlingError"), Message: aws.String("slow down")},
		}},
	}
	for name, cause := range throttles {
		for op, run := range ops {
			if _, tx := cause.(*types.TransactionCanceledException); tx && op != "complete with writes" {
				continue
			}
			t.Run(name+"/"+op, func(t *testing.T) {
				err := run(must(dynamostore.New(&fakeAPI{err: cause}, "t")))
				if !errors.Is(err, dynamostore.ErrThrottled) {
					t.Fatalf("err %v, want dynamostore.ErrThrottled", err)
				}
				wantWrapped(t, err, cause)
			})
		}
	}
}

// Other errors from DynamoDB arrive wrapped, named by key, and are not
// mistaken for throttling or a lost lease.
func TestOtherErrors(t *testing.T) {
	t.Parallel()
	cause := &types.ResourceNotFoundException{Message: aws.String("Cannot do operations on a non-existent table")}
	for op, run := range ops {
		t.Run(op, func(t *testing.T) {
			err := run(must(dynamostore.New(&fakeAPI{err: cause}, "t")))
			if err == nil || errors.Is(err, dynamostore.ErrThrottled) || errors.Is(err, idem.ErrLeaseLost) || errors.Is(err, idem.ErrResultTooLarge) {
				t.Fatalf("err %v, want DynamoDB's error only", err)
			}
			wantWrapped(t, err, cause)
		})
	}
}

// A context cancelled before the request is a context error, found with
// errors.Is through the store's wrapping.
func TestContextCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.store.Claim(ctx, idem.ClaimRequest{Key: "ctx#1", Owner: "o", Now: b.now, LeaseUntil: b.now.Add(time.Minute), ExpiresAt: b.now.Add(time.Hour)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// wantWrapped checks err is an *idem.Error naming the key that wraps cause.
func wantWrapped(t *testing.T, err, cause error) {
	t.Helper()
	var ie *idem.Error
	if !errors.As(err, &ie) || ie.Key != "k#1" {
		t.Fatalf("err %v, want an *idem.Error for key k#1", err)
	}
	if !errors.Is(err, cause) {
		t.Fatalf("err %v does not wrap DynamoDB's error %v", err, cause)
	}
	var api smithy.APIError
	if !errors.As(err, &api) {
		t.Fatalf("err %v: DynamoDB's error is not reachable with errors.As", err)
	}
}

// What DynamoDB answers the same completion again is marked so (not
// idem.Retryable), and idem.Do does not send it again; the rest may be
// transient.
func TestRetryableCompletionErrors(t *testing.T) {
	t.Parallel()
	cancelled := func(codes ...string) error {
		reasons := make([]types.CancellationReason, len(codes))
		for i, c := range codes {
			reasons[i] = types.CancellationReason{Code: aws.String(c)}
		}
		return &types.TransactionCanceledException{CancellationReasons: reasons}
	}
	for name, c := range map[string]struct {
		cause     error
		retryable bool
	}{
		"validation":                 {&smithy.GenericAPIError{Code: "ValidationException", Message: "bad expression"}, false},
		"a staged write's condition": {cancelled("None", "ConditionalCheckFailed"), false},
		"a staged write refused":     {cancelled("None", "ValidationError"), false},
		"a conflict":                 {cancelled("None", "TransactionConflict"), true},
		"a condition and a conflict": {cancelled("None", "ConditionalCheckFailed", "TransactionConflict"), true},
		"throttled":                  {cancelled("None", "ThrottlingError"), true},
		"no reason":                  {cancelled(), true},
		"another error":              {&types.InternalServerError{Message: aws.String("oops")}, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := ops["complete with writes"](must(dynamostore.New(&fakeAPI{err: c.cause}, "t")))
			if err == nil || idem.Retryable(err) != c.retryable {
				t.Fatalf("err %v: retryable %v, want %v", err, idem.Retryable(err), c.retryable)
			}
			wantWrapped(t, err, c.cause)
		})
	}
	big := types.TransactWriteItem{Put: &types.Put{TableName: aws.String("t"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberB{Value: make([]byte, dynamostore.MaxItemBytes+1)}}}}
	err := must(dynamostore.New(&fakeAPI{}, "t")).Complete(context.Background(), idem.Completion{Key: "k#1", Owner: "o", ExpiresAt: time.Now(), Writes: []any{big}})
	if !errors.Is(err, dynamostore.ErrWriteTooLarge) || idem.Retryable(err) {
		t.Fatalf("a staged write too large: %v, want dynamostore.ErrWriteTooLarge, not retryable", err)
	}
}
