package durable_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
)

// Two deliveries of one request and a re-sent copy start one execution. A
// deployed dispatcher builds its client with lambda.NewFromConfig and
// calls lambda.Start(d.Handle); here a fake Lambda stands in.
func Example() {
	fake := durabletest.Start()
	defer fake.Close()
	client := lambda.New(lambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(fake.URL), Credentials: aws.AnonymousCredentials{}})

	d, err := durable.New(client, "summarise:prod", quiet)
	if err != nil {
		fmt.Println(err)
		return
	}
	body := `{"idempotency_key":"order-4471","prompt":"Summarise document 4471"}`
	batch := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: body},
		{MessageId: "m1", Body: body},
		{MessageId: "m2", Body: `{"prompt": "Summarise document 4471", "idempotency_key": "order-4471"}`},
	}}
	resp, err := d.Handle(context.Background(), batch)
	fmt.Println(len(resp.BatchItemFailures), "failed,", err)
	for _, e := range fake.Executions() {
		fmt.Println(e.Name, string(e.Payload))
	}
	// Output:
	// 0 failed, <nil>
	// order-4471 {"idempotency_key":"order-4471","prompt":"Summarise document 4471"}
}

// A key that is not a valid execution name is hashed into one.
func ExampleExecutionName() {
	fmt.Println(durable.ExecutionName("order-4471"))
	fmt.Println(durable.ExecutionName("doc:4471:v9"))
	// Output:
	// order-4471
	// doc_4471_v9-8213b903a129c1f8132e80d213f7fdb756ff57ad
}
