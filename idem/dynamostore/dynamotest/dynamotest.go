package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// EndpointEnv names the environment variable holding DynamoDB Local's URL,
// as scripts/with-dynamodb.sh exports it: the worker's
// "IDEMQ_DYNAMODB_ENDPOINT", which a package under idem does not import
// (idemqenv imports idem); a test holds them equal.
const EndpointEnv = "IDEMQ_DYNAMODB_ENDPOINT"

// Region is the region the test clients sign for. DynamoDB Local keeps a
// separate set of tables per access key and region; every client made here
// uses the same ones, so they all see the same tables.
const Region = "us-east-1"

const hint = "start DynamoDB Local and set " + EndpointEnv + " to its URL (in idemq's repository: make test, or scripts/with-dynamodb.sh go test ./...)"

// Client returns a client for DynamoDB Local with static dummy credentials
// (DynamoDB Local 2 and later take only letters and digits in the access
// key).
// Each call makes a new client (its own connections), so a test can race
// two. It skips the test under -short, and fails it otherwise, when
// IDEMQ_DYNAMODB_ENDPOINT is unset or nothing answers there.
func Client(t testing.TB) *dynamodb.Client {
	t.Helper()
	endpoint := os.Getenv(EndpointEnv)
	if endpoint == "" {
		unavailable(t, EndpointEnv+" is not set")
	}
	client := newClient(endpoint)
	if err := reach(endpoint, client); err != nil {
		var api smithy.APIError
		if errors.As(err, &api) {
			// Something answers but refuses: not a reason to skip.
			t.Fatalf("dynamotest: %s=%s refuses a request: %v", EndpointEnv, endpoint, err)
		}
		unavailable(t, fmt.Sprintf("%s=%s does not answer: %v", EndpointEnv, endpoint, err))
	}
	return client
}

func newClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s; %s", why, hint)
	}
	t.Fatalf("%s; %s", why, hint)
}

// reachable remembers, per endpoint, whether it answered, so a package's
// tests ask once.
var reachable sync.Map // endpoint → func() error

// reach checks once per endpoint that DynamoDB Local answers a request.
func reach(endpoint string, client *dynamodb.Client) error {
	check, _ := reachable.LoadOrStore(endpoint, sync.OnceValue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}, func(o *dynamodb.Options) {
			o.RetryMaxAttempts = 1
		})
		if errors.Is(err, context.DeadlineExceeded) {
			return errors.New("no answer within 10s")
		}
		return err
	}))
	return check.(func() error)()
}
