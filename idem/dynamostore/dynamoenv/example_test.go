package dynamoenv_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/idemq/idemq/idem/dynamostore/dynamoenv"
	"github.com/idemq/idemq/idem/stores"
)

// The worker's settings name a DynamoDB table; the opener makes the store
// over it without a request (the first claim is the first request).
func Example() {
	settings := stores.Settings{Kind: stores.DynamoDB, Table: "idempotency", DynamoDBEndpoint: "http://127.0.0.1:8000"}
	awsConfig := func(context.Context) (aws.Config, error) {
		return aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}, nil
	}
	store, closeStore, err := stores.Open(context.Background(), settings, stores.Config{AWS: awsConfig, Connections: 10}, dynamoenv.Opener())
	if err != nil {
		panic(err)
	}
	defer closeStore()
	fmt.Printf("%T\n", store)
	// Output: *dynamostore.Store
}
