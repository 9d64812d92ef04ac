package dynamostore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// With a sort key, the item is where Powertools puts it: the static value
// in the partition key, the idempotency key in the sort key; and a
// duplicate still costs one request.
func TestSortKeyItemLayout(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client, dynamotest.WithSortKeyAttribute("sk"))
	api := &countingAPI{API: client}
	store := must(dynamostore.New(api, table, dynamostore.WithSortKey("sk", "idempotency#fn")))
	ctx := context.Background()
	work := func(context.Context) ([]byte, error) { return []byte("r"), nil }
	if _, err := idem.Do(ctx, store, "order#1", "", work); err != nil {
		t.Fatal(err)
	}
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "idempotency#fn"},
		"sk": &types.AttributeValueMemberS{Value: "order#1"},
	}})
	if err != nil || len(out.Item) == 0 {
		t.Fatalf("no item at (idempotency#fn, order#1): %v", err)
	}
	if st, _ := out.Item["status"].(*types.AttributeValueMemberS); st == nil || st.Value != string(idem.StatusCompleted) {
		t.Fatalf("item %v, want COMPLETED", out.Item)
	}
	api.take()
	r, err := idem.Do(ctx, store, "order#1", "", work)
	if err != nil || r.Outcome != idem.Replayed {
		t.Fatalf("duplicate: %+v, %v", r, err)
	}
	wantCalls(t, "duplicate", api.take(), map[string]int{"PutItem": 1})
	if rec, ok, err := store.Get(ctx, "order#1"); err != nil || !ok || rec.Key != "order#1" {
		t.Fatalf("get: %+v, %v, %v; want the record of order#1", rec, ok, err)
	}
}

func TestSortKeyClash(t *testing.T) {
	for _, tc := range []struct {
		field string
		opt   dynamostore.Option
	}{
		{"SortKey", dynamostore.WithSortKey("status", "x")},
		{"SortKey", dynamostore.WithSortKey("", "x")},
		{"PartitionValue", dynamostore.WithSortKey("sk", "")},
	} {
		_, err := dynamostore.New(&countingAPI{}, "t", tc.opt)
		if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "dynamostore" || bad.Field != tc.field {
			t.Errorf("err %v, want an *idem.ConfigError naming %s", err, tc.field)
		}
	}
}
