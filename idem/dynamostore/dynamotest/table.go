package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableOption configures NewTable.
type TableOption func(*tableOptions)

type tableOptions struct {
	key, sortKey string
}

// WithKeyAttribute names the table's partition key (a string attribute).
// Defaults to "id", the store's default.
func WithKeyAttribute(name string) TableOption {
	return func(o *tableOptions) {
		if name != "" {
			o.key = name
		}
	}
}

// WithSortKeyAttribute gives the table a sort key (a string attribute),
// as a single-table design has. Defaults to none.
func WithSortKeyAttribute(name string) TableOption {
	return func(o *tableOptions) { o.sortKey = name }
}

// NewTable creates a table no other test uses, with a string partition key
// and on-demand billing, and deletes it when the test ends. It returns the
// table's name. No TTL is set on it: expired records stay, as they do in
// AWS until the TTL sweeper gets to them, and the stores must treat them as
// absent themselves.
func NewTable(t testing.TB, client *dynamodb.Client, opts ...TableOption) string {
	t.Helper()
	o := tableOptions{key: "id"}
	for _, opt := range opts {
		opt(&o)
	}
	name := tableName(t)
	if err := createTable(context.Background(), client, name, o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("dynamotest: delete table %s: %v", name, err)
		}
	})
	return name
}

// CreateTable creates an idempotency table named name: the partition key
// "id" (a string, the attribute name idemq and Powertools both use),
// on-demand billing, no TTL. It waits until the table is ACTIVE, for 30
// seconds at most. Unlike NewTable it needs no test: the real-pipeline
// check and the benchmarks use it too.
func CreateTable(ctx context.Context, client *dynamodb.Client, name string) error {
	return createTable(ctx, client, name, tableOptions{key: "id"})
}

func createTable(ctx context.Context, client *dynamodb.Client, name string, o tableOptions) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	defs := []types.AttributeDefinition{{AttributeName: aws.String(o.key), AttributeType: types.ScalarAttributeTypeS}}
	schema := []types.KeySchemaElement{{AttributeName: aws.String(o.key), KeyType: types.KeyTypeHash}}
	if o.sortKey != "" {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(o.sortKey), AttributeType: types.ScalarAttributeTypeS})
		schema = append(schema, types.KeySchemaElement{AttributeName: aws.String(o.sortKey), KeyType: types.KeyTypeRange})
	}
	out, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: defs,
		KeySchema:            schema,
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return fmt.Errorf("dynamotest: create table %s: %w", name, err)
	}
	if out.TableDescription != nil && out.TableDescription.TableStatus == types.TableStatusActive {
		return nil
	}
	return waitActive(ctx, client, name)
}

// waitActive polls until the table is ACTIVE. DynamoDB Local makes tables
// ACTIVE at once unless run with -delayTransientStatuses.
func waitActive(ctx context.Context, client *dynamodb.Client, name string) error {
	for {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("dynamotest: describe table %s: %w", name, err)
		}
		if out.Table != nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamotest: table %s is not ACTIVE: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// tableName is the test's name made safe for a table name, cut short, with
// a random suffix: readable in a server log, unique across parallel tests
// and repeated runs.
func tableName(t testing.TB) string {
	base := unsafeChars.ReplaceAllString(t.Name(), "-")
	if len(base) > 180 {
		base = base[:180]
	}
	return "idemq-" + base + "-" + Suffix()
}

// Suffix is a random suffix for a table name: 12 hex digits.
func Suffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
