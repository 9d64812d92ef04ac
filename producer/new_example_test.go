package producer_test

import (
	"context"
	"fmt"
	"log"

	"github.com/idemq/idemq/producer"
)

// A producer sends each request with its idempotency key in the body,
// where the worker's handler reads it. A program passes
// sqs.NewFromConfig(cfg); here the queue is an in-memory stand-in.
func ExampleNew() {
	queue := &fakeSQS{}
	p, err := producer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs")
	if err != nil {
		log.Fatal(err)
	}
	sent, err := p.Send(context.Background(), producer.Message{
		Key:  "order-1042",
		Body: []byte(`{"prompt":"summarise document 4471"}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("key:", sent.Key, "message:", sent.MessageID)
	fmt.Println("body:", queue.taken()[0])
	// Output:
	// key: order-1042 message: m1
	// body: {"idempotency_key":"order-1042","prompt":"summarise document 4471"}
}

// SendBatch sends up to ten requests a call; each Sent says its own fate.
func ExampleProducer_SendBatch() {
	queue := &fakeSQS{}
	p, err := producer.New(queue, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs")
	if err != nil {
		log.Fatal(err)
	}
	sent, err := p.SendBatch(context.Background(), []producer.Message{
		{Key: "order-1", Body: []byte(`{"sku":"A"}`)},
		{Key: "order-2", Body: []byte(`{"sku":"B"}`)},
	})
	for _, s := range sent {
		fmt.Println(s.Key, s.MessageID, s.Err)
	}
	fmt.Println("error:", err)
	// Output:
	// order-1 m1 <nil>
	// order-2 m2 <nil>
	// error: <nil>
}
