package pipeline

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
