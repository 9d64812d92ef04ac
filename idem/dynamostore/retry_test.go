package dynamostore_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/storekit"
)

// lostAnswerAPI sends every write twice and returns the second answer, as
// the SDK does when the first answer is lost after DynamoDB applied it.
type lostAnswerAPI struct{ dynamostore.API }

func (a lostAnswerAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	_, _ = a.API.PutItem(ctx, in, o...)
	return a.API.PutItem(ctx, in, o...)
}

func (a lostAnswerAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	_, _ = a.API.UpdateItem(ctx, in, o...)
	return a.API.UpdateItem(ctx, in, o...)
}

func (a lostAnswerAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	_, _ = a.API.TransactWriteItems(ctx, in, o...)
	return a.API.TransactWriteItems(ctx, in, o...)
}

// A write applied whose answer was lost and that is sent again must not
// be mistaken for another worker's: the claim would wait out its own
// lease, and the completion would be reported as a lost lease.
func TestRetriedWritesAreTheirOwn(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	b := setup(t)
	store := must(dynamostore.New(lostAnswerAPI{client}, b.table))
	r, err := idem.Do(context.Background(), store, "retry#plain", "", func(context.Context) ([]byte, error) {
		return []byte("answer"), nil
	})
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("claim and complete, each sent twice: %+v, %v; want executed", r, err)
	}
	r, err = idem.Do(context.Background(), store, "retry#tx", "", func(ctx context.Context) ([]byte, error) {
		return []byte("answer"), dynamostore.Stage(ctx, b.put("retry#side"))
	})
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("claim and transaction, each sent twice: %+v, %v; want executed", r, err)
	}
	for _, key := range []idem.Key{"retry#plain", "retry#tx"} {
		c, _ := b.claim(t, key, time.Now(), time.Minute, time.Hour)
		if c.String() != string(idem.StatusCompleted) || string(c.Record.Result) != "answer" {
			t.Fatalf("%s: %+v, want COMPLETED with the answer", key, c)
		}
	}

	// So is a compressed result's, alone and in a transaction.
	prose := idemtest.Prose(8 << 10)
	for key, stage := range map[idem.Key]bool{"retry#gzip": false, "retry#gziptx": true} {
		r, err = idem.Do(context.Background(), store, key, "", func(ctx context.Context) ([]byte, error) {
			if stage {
				return prose, dynamostore.Stage(ctx, b.put(string(key)+"side"))
			}
			return prose, nil
		})
		if err != nil || r.Outcome != idem.Executed {
			t.Fatalf("%s: compressed completion sent twice: %+v, %v; want executed", key, r.Outcome, err)
		}
		c, _ := b.claim(t, key, time.Now(), time.Minute, time.Hour)
		if v, err := c.Record.DecodedResult(0); c.Record.Encoding != storekit.EncodingGzip || err != nil || !bytes.Equal(v, prose) {
			t.Fatalf("%s: record with encoding %q (%v), want the result gzipped", key, c.Record.Encoding, err)
		}
	}

	// A completion without the result, sent twice, is its own too.
	big := incompressible(dynamostore.MaxItemBytes)
	r, err = idem.Do(context.Background(), store, "retry#omit", "", func(context.Context) ([]byte, error) {
		return big, nil
	})
	if !errors.Is(err, idem.ErrResultTooLarge) || errors.Is(err, idem.ErrLeaseLost) || !r.Omitted {
		t.Fatalf("completion without the result, sent twice: %+v, %v; want omitted with ErrResultTooLarge alone", r.Omitted, err)
	}
	r, err = idem.Do(context.Background(), store, "retry#omittx", "", func(ctx context.Context) ([]byte, error) {
		return big, dynamostore.Stage(ctx, b.put("retry#omitside"))
	})
	if !errors.Is(err, idem.ErrResultTooLarge) || errors.Is(err, idem.ErrLeaseLost) || !r.Omitted {
		t.Fatalf("transaction without the result, sent twice: %+v, %v; want omitted with ErrResultTooLarge alone", r.Omitted, err)
	}
	for _, key := range []idem.Key{"retry#omit", "retry#omittx"} {
		c, _ := b.claim(t, key, time.Now(), time.Minute, time.Hour)
		if c.String() != string(idem.StatusCompleted) || c.Record.OmittedBytes != len(big) {
			t.Fatalf("%s: %+v, want COMPLETED with the marker", key, c)
		}
	}
	if b.rawItem(t, "id", "retry#omitside") == nil {
		t.Error("the staged write of the completion without the result was not written")
	}
}
