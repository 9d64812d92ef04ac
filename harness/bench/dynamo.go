package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/idemq/idemq/idem/dynamostore"
)

// EndpointEnv names the environment variable holding DynamoDB Local's URL,
// as scripts/with-dynamodb.sh exports it.
const EndpointEnv = "IDEMQ_DYNAMODB_ENDPOINT"

// DynamoDB Local keeps one set of tables per access key and region: every
// client of a run, Go's and Node's, signs with these so they share tables.
const (
	region    = "us-east-1"
	accessKey = "idemqbench" // letters and digits only, as DynamoDB Local 2+ wants
)

// newClient returns a DynamoDB client for endpoint with the SDK's defaults
// (retries, HTTP transport), counting its requests with c when c is not
// nil. When conns is not 0 it keeps that many idle connections
// (dynamostore.KeepConnections), as the README has users build the client
// of a handler that runs conns records at once.
func newClient(endpoint string, c *Counter, conns int) *dynamodb.Client {
	var api []func(*middleware.Stack) error
	if c != nil {
		api = append(api, c.Middleware())
	}
	var opts []func(*dynamodb.Options)
	if conns > 0 {
		opts = append(opts, dynamostore.KeepConnections(conns))
	}
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, accessKey, ""),
		APIOptions:   api,
	}, opts...)
}

// deleteTable deletes a table; one already gone is not an error.
func deleteTable(ctx context.Context, client *dynamodb.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	var missing *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &missing) {
		return fmt.Errorf("bench: delete table %s: %w", name, err)
	}
	return nil
}

// reach checks that DynamoDB Local answers at endpoint.
func reach(ctx context.Context, endpoint string) error {
	if endpoint == "" {
		return fmt.Errorf("bench: %s is not set: run under scripts/with-dynamodb.sh (make bench does)", EndpointEnv)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := newClient(endpoint, nil, 0).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}, func(o *dynamodb.Options) {
		o.RetryMaxAttempts = 1
	})
	if err != nil {
		return fmt.Errorf("bench: DynamoDB Local does not answer at %s=%s: %w", EndpointEnv, endpoint, err)
	}
	return nil
}

// stored is the size (itemBytes) and number of the items in a table.
func stored(ctx context.Context, client *dynamodb.Client, table string) (bytes, items int, err error) {
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: scan %s: %w", table, err)
		}
		for _, it := range page.Items {
			bytes += itemBytes(it)
		}
		items += len(page.Items)
	}
	return bytes, items, nil
}
