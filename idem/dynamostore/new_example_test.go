package dynamostore_test

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/dynamostore"
)

// New takes a DynamoDB client and the table's name (the CDK stack's, or
// any table with a string partition key "id" and TTL on "expiration"). It
// sends nothing; the first claim does. (Not run: it needs AWS.)
func ExampleNew() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
	store, err := dynamostore.New(client, "idempotency")
	if err != nil {
		log.Fatal(err) // a nil client, an empty table name, a bad option
	}
	type Order struct {
		ID string `json:"order_id" idemq:"key"`
	}
	h, err := handler.NewTyped(store, func(ctx context.Context, o Order) (string, error) {
		return "charged " + o.ID, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(h)
}
