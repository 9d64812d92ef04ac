package dynamostore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// tableName returns a fresh table name, deleted when the test ends.
func tableName(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	name := "idemq-table-" + dynamotest.Suffix()
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// CreateTable makes a table the store works on, with TTL on the expiry
// attribute; CheckTable accepts it, and CreateTable again leaves it be.
func TestCreateTable(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []dynamostore.Option
	}{
		{"default", nil},
		{"custom names and a sort key", []dynamostore.Option{
			dynamostore.WithAttributes(dynamostore.Attributes{Key: "pk", Expiry: "ttl"}),
			dynamostore.WithSortKey("sk", "idempotency#fn"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			table := tableName(t, client)
			if err := dynamostore.CreateTable(ctx, client, table, tc.opts...); err != nil {
				t.Fatal(err)
			}
			if err := dynamostore.CheckTable(ctx, client, table, tc.opts...); err != nil {
				t.Fatalf("check of the table just made: %v", err)
			}
			if err := dynamostore.CreateTable(ctx, client, table, tc.opts...); err != nil {
				t.Fatalf("create of a table that exists: %v", err)
			}
			ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
			if err != nil {
				t.Fatal(err)
			}
			if want := must(dynamostore.New(client, table, tc.opts...)).Attributes().Expiry; aws.ToString(ttl.TimeToLiveDescription.AttributeName) != want {
				t.Errorf("TTL on %q, want %q", aws.ToString(ttl.TimeToLiveDescription.AttributeName), want)
			}
			store := must(dynamostore.New(client, table, tc.opts...))
			now := time.Now()
			c, err := store.Claim(ctx, idem.ClaimRequest{Key: "t#1", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
			if err != nil || !c.Claimed {
				t.Fatalf("claim on the new table: %+v, %v", c, err)
			}
		})
	}
}

// CheckTable names what differs: a missing table, another key, no TTL.
func TestCheckTable(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	ctx := context.Background()

	if err := dynamostore.CheckTable(ctx, client, "idemq-missing-"+dynamotest.Suffix()); !isNotFound(err) {
		t.Errorf("missing table: %v, want ResourceNotFoundException", err)
	}
	noTTL := dynamotest.NewTable(t, client) // key "id", no TTL
	if err := dynamostore.CheckTable(ctx, client, noTTL); !errors.Is(err, dynamostore.ErrTableMismatch) {
		t.Errorf("table without TTL: %v, want ErrTableMismatch", err)
	}
	otherKey := dynamotest.NewTable(t, client, dynamotest.WithKeyAttribute("pk"))
	if err := dynamostore.CheckTable(ctx, client, otherKey); !errors.Is(err, dynamostore.ErrTableMismatch) {
		t.Errorf("table keyed by pk: %v, want ErrTableMismatch", err)
	}
	if err := dynamostore.CheckTable(ctx, client, noTTL, dynamostore.WithSortKey("sk", "p")); !errors.Is(err, dynamostore.ErrTableMismatch) {
		t.Errorf("table without the sort key: %v, want ErrTableMismatch", err)
	}
}

func isNotFound(err error) bool {
	_, ok := errors.AsType[*types.ResourceNotFoundException](err)
	return ok
}

// CreateTable WithMultiRegionStrong makes the table of one Region that
// replicas with strong consistency are then added to: TTL left off, as
// such a table keeps none; CheckTable with the option accepts it, and
// without it refuses it for want of TTL.
func TestCreateTableForMultiRegionStrong(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	ctx := context.Background()
	table := tableName(t, client)
	if err := dynamostore.CreateTable(ctx, client, table, dynamostore.WithMultiRegionStrong()); err != nil {
		t.Fatal(err)
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("TTL %s on %q, want it off", d.TimeToLiveStatus, aws.ToString(d.AttributeName))
	}
	if err := dynamostore.CheckTable(ctx, client, table, dynamostore.WithMultiRegionStrong()); err != nil {
		t.Errorf("check with the option: %v", err)
	}
	if err := dynamostore.CheckTable(ctx, client, table); !errors.Is(err, dynamostore.ErrTableMismatch) {
		t.Errorf("check without the option: %v, want ErrTableMismatch (no TTL)", err)
	}
	store := must(dynamostore.New(client, table, dynamostore.WithMultiRegionStrong()))
	r, err := idem.Do(ctx, store, "t#1", "", func(context.Context) ([]byte, error) { return []byte("done"), nil })
	if err != nil || r.Outcome != idem.Executed {
		t.Fatalf("Do on the table: %+v, %v; want Executed", r, err)
	}
}
