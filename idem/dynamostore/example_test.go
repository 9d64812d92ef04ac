package dynamostore_test

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/dynamostore"
)

// The store behind an SQS-triggered function: one client, one table, as
// many idle connections as records run at once. (Not run here: it needs
// AWS; the package's tests run the same calls against DynamoDB Local.)
func Example() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
	store := dynamostore.New(client, "idempotency")
	lambda.Start(handler.WrapSQS(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte("done"), nil
	}))
}

// A write of the work's own, committed in one transaction with the
// record's result: the order row exists exactly when the key is COMPLETED.
func ExampleStage() {
	work := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		orderID := "order-4471" // read from msg.Body, as the key is: never the message id
		err := dynamostore.Stage(ctx, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String("orders"),
			Item: map[string]types.AttributeValue{
				"id":     &types.AttributeValueMemberS{Value: orderID},
				"status": &types.AttributeValueMemberS{Value: "PLACED"},
			},
		}})
		return []byte("placed"), err
	}
	_ = work // handler.WrapSQS(store, work)
}
