package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// NewDynamoClient returns a client for DynamoDB Local with the dummy
// credentials it takes (letters and digits).
func NewDynamoClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
}

// DeleteTable deletes the table.
func DeleteTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	return err
}

// StoredRecord is a record as read back from the table.
type StoredRecord struct {
	Key        string
	Status     idem.Status
	Result     []byte
	LeaseUntil time.Time
}

// ScanRecords reads every record of the table (Powertools' attribute
// names, the store's defaults).
func ScanRecords(ctx context.Context, client *dynamodb.Client, table string) (map[string]StoredRecord, error) {
	out := map[string]StoredRecord{}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("pipeline: scan %s: %w", table, err)
		}
		for _, item := range page.Items {
			var r StoredRecord
			if v, ok := item["id"].(*types.AttributeValueMemberS); ok {
				r.Key = v.Value
			}
			if v, ok := item["status"].(*types.AttributeValueMemberS); ok {
				r.Status = idem.Status(v.Value)
			}
			if v, ok := item["data"].(*types.AttributeValueMemberB); ok {
				r.Result = v.Value
			}
			if v, ok := item["in_progress_expiration"].(*types.AttributeValueMemberN); ok {
				var ms int64
				_, _ = fmt.Sscan(v.Value, &ms)
				r.LeaseUntil = time.UnixMilli(ms)
			}
			out[r.Key] = r
		}
	}
	return out, nil
}
