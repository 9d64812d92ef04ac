package dynamostore_test

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/request"
)

// TestMain points the SDK's default configuration, which the examples
// load as a function does, at DynamoDB Local: AWS_ENDPOINT_URL_DYNAMODB
// and its dummy credentials. Without a server the examples are skipped
// under -short, as the tests skip themselves; otherwise they run against
// an address nothing listens on, and fail (never against AWS).
func TestMain(m *testing.M) {
	flag.Parse()
	endpoint := os.Getenv(dynamotest.EndpointEnv)
	switch {
	case endpoint == "" && testing.Short():
		_ = flag.Set("test.skip", "^Example")
	case endpoint == "":
		fmt.Fprintf(os.Stderr, "dynamostore: %s is not set: the examples will fail; use `make test`, or `scripts/with-dynamodb.sh go test ./...`\n", dynamotest.EndpointEnv)
		endpoint = "http://127.0.0.1:1"
	}
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": endpoint,
		"AWS_REGION":                dynamotest.Region,
		"AWS_ACCESS_KEY_ID":         "idemqlocal",
		"AWS_SECRET_ACCESS_KEY":     "idemqlocal",
	} {
		_ = os.Setenv(k, v)
	}
	_ = os.Unsetenv("AWS_SESSION_TOKEN")
	_ = os.Unsetenv("AWS_PROFILE")
	os.Exit(m.Run())
}

// newTable stands for the table the CDK stack (infra/) makes: a string
// partition key "id", and TTL on "expiration".
func newTable(ctx context.Context, client *dynamodb.Client, name string) (string, func(), error) {
	name += "-" + dynamotest.Suffix()
	if err := dynamotest.CreateTable(ctx, client, name); err != nil {
		return "", nil, err
	}
	return name, func() { _, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) }, nil
}

// A message and the producer's re-send of it (a new message id, the same
// idempotency key in the body), through the store as a function builds
// it: one client from the default configuration, as many idle connections
// as records run at once. The work runs once.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
	table, drop, err := newTable(ctx, client, "idempotency")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer drop()

	store, err := dynamostore.New(client, table)
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		fmt.Println("calling the provider for", msg.MessageId)
		return []byte("summary"), nil
	}, handler.WithRequest(request.Identity{Namespace: "summariser"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	// In the function: lambda.Start(h).

	for _, id := range []string{"msg-1", "msg-2"} {
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{{
			MessageId: id, Body: `{"idempotency_key":"doc-4471","prompt":"Summarise document 4471"}`,
		}}})
		fmt.Println(id, "batch item failures:", len(resp.BatchItemFailures), err)
	}
	// Output:
	// calling the provider for msg-1
	// msg-1 batch item failures: 0 <nil>
	// msg-2 batch item failures: 0 <nil>
}

// The whole main of an SQS-triggered function. (Not run: lambda.Start
// waits for Lambda's runtime API.)
func Example_lambda() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(handler.DefaultConcurrency))
	store, err := dynamostore.New(client, os.Getenv("IDEMQ_TABLE"))
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(must(handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte("done"), nil
	})))
}

// A write of the work's own, committed in one transaction with the
// record's result: the order row exists exactly when the key is COMPLETED.
// The message comes twice; the order is placed once.
func ExampleStage() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	client := dynamodb.NewFromConfig(cfg)
	table, drop, err := newTable(ctx, client, "idempotency")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer drop()
	orders, dropOrders, err := newTable(ctx, client, "orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dropOrders()

	work := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		fmt.Println("placing the order")
		orderID := "order-4471" // read from msg.Body, as the key is: never the message id
		err := dynamostore.Stage(ctx, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(orders),
			Item: map[string]types.AttributeValue{
				"id":     &types.AttributeValueMemberS{Value: orderID},
				"status": &types.AttributeValueMemberS{Value: "PLACED"},
			},
		}})
		return []byte("placed"), err
	}
	store, err := dynamostore.New(client, table)
	if err != nil {
		log.Fatal(err)
	}
	h, err := handler.New(store, work,
		handler.WithRequest(request.Identity{Namespace: "orders"}), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	msg := events.SQSMessage{MessageId: "msg-1", Body: `{"idempotency_key":"order-4471"}`}
	for range 2 { // the message and its redelivery
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{msg}})
		fmt.Println("batch item failures:", len(resp.BatchItemFailures), err)
	}

	row, err := client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(orders), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "order-4471"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("order:", row.Item["status"].(*types.AttributeValueMemberS).Value)
	// Output:
	// placing the order
	// batch item failures: 0 <nil>
	// batch item failures: 0 <nil>
	// order: PLACED
}
