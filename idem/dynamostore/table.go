package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableAPI is the part of the DynamoDB client CreateTable and CheckTable
// call. *dynamodb.Client satisfies it. A store's own client needs none of
// these rights: a worker that only checks needs DescribeTable and
// DescribeTimeToLive.
type TableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
}

var _ TableAPI = (*dynamodb.Client)(nil)

// tableWait is how long CreateTable waits for a new table to be ACTIVE.
const tableWait = 2 * time.Minute

// CreateTable creates the table a Store made with opts keeps its records
// in, for users without the CDK app (infra/) or another template: the
// partition key (Attributes.Key, a string; with WithSortKey, the sort key
// too), on-demand billing, and TTL on the expiry attribute so that expired
// records are deleted (not WithMultiRegionStrong: the table, made in one
// Region, is to get its replicas next, and an MRSC table keeps no TTL).
// It waits until the table is ACTIVE. A table that
// already exists is not changed: CreateTable then checks it as CheckTable
// does. Options New refuses are refused here too, with the same
// *idem.ConfigError, before any request.
func CreateTable(ctx context.Context, client TableAPI, table string, opts ...Option) error {
	o, err := resolve(opts)
	if err != nil {
		return err
	}
	defs := []types.AttributeDefinition{{AttributeName: aws.String(o.Attributes.Key), AttributeType: types.ScalarAttributeTypeS}}
	schema := []types.KeySchemaElement{{AttributeName: aws.String(o.Attributes.Key), KeyType: types.KeyTypeHash}}
	if o.SortKey != "" {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(o.SortKey), AttributeType: types.ScalarAttributeTypeS})
		schema = append(schema, types.KeySchemaElement{AttributeName: aws.String(o.SortKey), KeyType: types.KeyTypeRange})
	}
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: defs,
		KeySchema:            schema,
		BillingMode:          types.BillingModePayPerRequest,
	}, errorChecksums)
	if _, exists := errors.AsType[*types.ResourceInUseException](err); exists {
		return CheckTable(ctx, client, table, opts...)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create table %s: %w", table, err)
	}
	wait, cancel := context.WithTimeout(ctx, tableWait)
	defer cancel()
	if err := waitActive(wait, client, table); err != nil {
		return err
	}
	if o.MultiRegionStrong {
		return nil // an MRSC table keeps no TTL
	}
	if _, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(o.Attributes.Expiry),
			Enabled:       aws.Bool(true),
		},
	}, errorChecksums); err != nil {
		return fmt.Errorf("dynamostore: turn on TTL on %s.%s: %w", table, o.Attributes.Expiry, err)
	}
	return nil
}

// CheckTable checks that table is the one a Store made with opts needs:
// its key schema; its replicas, if any: a global table must have
// multi-Region strong consistency (MRSC), and the store be made
// WithMultiRegionStrong for it, since with eventual consistency two
// Regions can both claim one key and both run the work; and TTL on (or
// being turned on for) the expiry attribute, unless WithMultiRegionStrong
// (such a table keeps no TTL). A difference is ErrTableMismatch, saying
// what differs and why; a missing table is the SDK's
// *types.ResourceNotFoundException. A worker can call it at start-up to
// fail early rather than on every record. Options New refuses are refused
// here too, with the same *idem.ConfigError, before any request.
func CheckTable(ctx context.Context, client TableAPI, table string, opts ...Option) error {
	o, err := resolve(opts)
	if err != nil {
		return err
	}
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, errorChecksums)
	if err != nil {
		return fmt.Errorf("dynamostore: describe table %s: %w", table, err)
	}
	want := map[types.KeyType]string{types.KeyTypeHash: o.Attributes.Key}
	if o.SortKey != "" {
		want[types.KeyTypeRange] = o.SortKey
	}
	got := map[types.KeyType]string{}
	for _, k := range out.Table.KeySchema {
		got[k.KeyType] = aws.ToString(k.AttributeName)
	}
	kinds := map[string]types.ScalarAttributeType{}
	for _, d := range out.Table.AttributeDefinitions {
		kinds[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	for kt, name := range want {
		if got[kt] != name || kinds[name] != types.ScalarAttributeTypeS {
			return fmt.Errorf("%w: %s's %s key is %q (type %q), want the string attribute %q", ErrTableMismatch, table, kt, got[kt], kinds[got[kt]], name)
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("%w: %s's key schema is %v, want %v", ErrTableMismatch, table, got, want)
	}
	if _, err := checkReplicas(table, out.Table, o); err != nil {
		return err
	}
	if o.MultiRegionStrong {
		return nil // such a table keeps no TTL
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)}, errorChecksums)
	if err != nil {
		return fmt.Errorf("dynamostore: describe TTL of %s: %w", table, err)
	}
	d := ttl.TimeToLiveDescription
	on := d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling)
	if !on || aws.ToString(d.AttributeName) != o.Attributes.Expiry {
		var status, attr string
		if d != nil {
			status, attr = string(d.TimeToLiveStatus), aws.ToString(d.AttributeName)
		}
		return fmt.Errorf("%w: %s's TTL is %q on %q, want it on %q: expired records would never be deleted", ErrTableMismatch, table, status, attr, o.Attributes.Expiry)
	}
	return nil
}

// waitActive polls until the table is ACTIVE.
func waitActive(ctx context.Context, client TableAPI, table string) error {
	for {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, errorChecksums)
		if err != nil {
			return fmt.Errorf("dynamostore: describe table %s: %w", table, err)
		}
		if out.Table != nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamostore: table %s is not ACTIVE: %w", table, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
