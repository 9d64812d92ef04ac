package durabletest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/idemq/idemq/durable/durabletest"
)

// The real SDK client, pointed at the fake: a second start under the
// same execution name with the same payload gets the same execution, one
// with another payload is refused, as AWS documents.
func Example() {
	fake := durabletest.Start()
	defer fake.Close()
	client := lambda.New(lambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(fake.URL), Credentials: aws.AnonymousCredentials{}})

	start := func(payload string) error {
		_, err := client.Invoke(context.Background(), &lambda.InvokeInput{
			FunctionName:         aws.String("summarise:prod"),
			DurableExecutionName: aws.String("order-4471"),
			Payload:              []byte(payload),
		})
		return err
	}
	fmt.Println(start(`{"doc":4471}`))
	fmt.Println(start(`{"doc":4471}`))
	var taken *types.DurableExecutionAlreadyStartedException
	fmt.Println(errors.As(start(`{"doc":9999}`), &taken))
	for _, e := range fake.Executions() {
		fmt.Println(e.Function, e.Qualifier, e.Name, string(e.Payload))
	}
	// Output:
	// <nil>
	// <nil>
	// true
	// summarise prod order-4471 {"doc":4471}
}
