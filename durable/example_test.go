package durable_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
	"github.com/idemq/idemq/request"
)

// Two deliveries of one request and a re-sent copy start one execution. A
// deployed dispatcher builds its client with lambda.NewFromConfig and
// calls lambda.Start(d.Handle); here a fake Lambda stands in.
func Example() {
	fake := durabletest.Start()
	defer fake.Close()
	client := lambda.New(lambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(fake.URL), Credentials: aws.AnonymousCredentials{}})

	d, err := durable.New(client, "summarise:prod", quiet,
		durable.WithRequest(request.Identity{Namespace: "summarise"})) // the handler's

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
	// summarise_order-4471-2a2e5ad2d52e6b97903dc9f445af37fe8960b3de {"idempotency_key":"order-4471","prompt":"Summarise document 4471"}
}

// A record key holds '#', which no execution name takes: it is hashed into
// one. A string that is a valid name is its own.
func ExampleExecutionName() {
	fmt.Println(durable.ExecutionName("summarise#order-4471"))
	fmt.Println(durable.ExecutionName("docs#document_id:doc-1:version:1"))
	fmt.Println(durable.ExecutionName("order-4471"))
	// Output:
	// summarise_order-4471-2a2e5ad2d52e6b97903dc9f445af37fe8960b3de
	// docs_document_id_doc-1_-301cb7bd7c29dfddc8f30a12cf1659730e5ac26b
	// order-4471
}
