package dynamostore_test

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/storekit"
)

// bundle is one test's table, a client counting its requests and a store
// on them.
type bundle struct {
	client *dynamodb.Client
	api    *countingAPI
	table  string
	store  *dynamostore.Store
	now    time.Time
}

func setup(t *testing.T, opts ...dynamostore.Option) *bundle {
	t.Helper()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client)
	api := &countingAPI{API: client}
	return &bundle{
		client: client,
		api:    api,
		table:  table,
		store:  must(dynamostore.New(api, table, opts...)),
		now:    time.Now().Truncate(time.Second),
	}
}

// claim claims key at `at` with a fresh owner and fails the test on error.
func (b *bundle) claim(t *testing.T, key idem.Key, at time.Time, lease, expiry time.Duration) (idem.Claim, string) {
	t.Helper()
	owner := storekit.NewOwner()
	c, err := b.store.Claim(context.Background(), idem.ClaimRequest{
		Key: key, Owner: owner, Now: at, LeaseUntil: at.Add(lease), ExpiresAt: at.Add(expiry),
	})
	if err != nil {
		t.Fatalf("claim %q: %v", key, err)
	}
	return c, owner
}

func (b *bundle) mustClaim(t *testing.T, key idem.Key) string {
	t.Helper()
	c, owner := b.claim(t, key, b.now, time.Minute, time.Hour)
	if !c.Claimed {
		t.Fatalf("claim %q: state %s, want claimed", key, c)
	}
	return owner
}

// rawItem reads an item of the table as DynamoDB holds it.
func (b *bundle) rawItem(t *testing.T, keyAttr, key string) map[string]types.AttributeValue {
	t.Helper()
	out, err := b.client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(b.table),
		Key:            map[string]types.AttributeValue{keyAttr: &types.AttributeValueMemberS{Value: key}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("get item %q: %v", key, err)
	}
	return out.Item
}

// countingAPI counts the requests the store sends, by operation.
type countingAPI struct {
	dynamostore.API
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingAPI) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = make(map[string]int)
	}
	c.calls[op]++
}

// take returns the counts so far and starts again from zero.
func (c *countingAPI) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.calls
	c.calls = nil
	if m == nil {
		m = map[string]int{}
	}
	return m
}

func (c *countingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.count("PutItem")
	return c.API.PutItem(ctx, in, o...)
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.count("UpdateItem")
	return c.API.UpdateItem(ctx, in, o...)
}

func (c *countingAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.count("DeleteItem")
	return c.API.DeleteItem(ctx, in, o...)
}

func (c *countingAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.count("TransactWriteItems")
	return c.API.TransactWriteItems(ctx, in, o...)
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.count("GetItem")
	return c.API.GetItem(ctx, in, o...)
}

// incompressible returns n random bytes, which idem.Do stores as they are:
// gzip cannot shrink them.
func incompressible(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
