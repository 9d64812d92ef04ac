package dynamostore_test

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/netfault"
)

// One retry layer: a completion against a DynamoDB that refuses every
// completing request (the connection cut before DynamoDB Local sees it)
// costs CompleteAttempts requests, the SDK retryer's, raised for the
// completion, and no more: idem.Do sends it once. The claim and the
// release after the failed completion go through, so the key is free
// again. With a staged write the completion is a transaction, counted the
// same way.
func TestCompletionRequestsWhileDown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	u, err := url.Parse(os.Getenv(dynamotest.EndpointEnv))
	if err != nil {
		t.Fatal(err)
	}
	var completions atomic.Int32
	p, err := netfault.Start(u.Host, func(req []byte) netfault.Verdict {
		if bytes.Contains(req, []byte("DynamoDB_20120810.UpdateItem")) || bytes.Contains(req, []byte("DynamoDB_20120810.TransactWriteItems")) {
			completions.Add(1)
			return netfault.Refuse
		}
		return netfault.Pass
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	client := dynamodb.New(dynamodb.Options{
		Region:       dynamotest.Region,
		BaseEndpoint: aws.String("http://" + p.Addr()),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
	store := must(dynamostore.New(client, b.table))
	for key, staged := range map[idem.Key]bool{"down#plain": false, "down#staged": true} {
		completions.Store(0)
		r, err := idem.Do(context.Background(), store, key, "", func(ctx context.Context) ([]byte, error) {
			if staged {
				return []byte("answer"), dynamostore.Stage(ctx, b.put(string(key)+"side"))
			}
			return []byte("answer"), nil
		})
		if r.Outcome != idem.NotStored || err == nil || errors.Is(err, idem.ErrLeaseLost) {
			t.Fatalf("%s: %+v, %v; want NotStored with the connection's error", key, r, err)
		}
		if n := completions.Load(); n != dynamostore.CompleteAttempts {
			t.Errorf("%s: %d completing requests, want %d (one completion, the SDK's attempts)", key, n, dynamostore.CompleteAttempts)
		}
		if item := b.rawItem(t, "id", string(key)); item != nil {
			t.Errorf("%s: the claim was not released: %v", key, item)
		}
	}
}
