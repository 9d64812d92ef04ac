// Package sqstest connects tests to the SQS server (moto_server) that
// scripts/with-sqs.sh starts, and gives each test a queue of its own.
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		client := sqstest.Client(t)
//		url := sqstest.NewQueue(t, client, sqstest.Queue{Visibility: 30 * time.Second})
//		...
//	}
//
// The endpoint comes from IDEMQ_TEST_SQS_ENDPOINT. When it is unset or
// nothing answers there, a test run with -short is skipped and any other
// test fails: a skipped test is not a passing one.
package sqstest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/internal/testenv"
)

// EndpointEnv names the environment variable holding the SQS server's URL,
// as scripts/with-sqs.sh exports it.
const EndpointEnv = testenv.SQSEndpoint

// Region is the region the test clients sign for.
const Region = "us-east-1"

const hint = "the SQS server is not running: use `make test`, or `scripts/with-sqs.sh go test ./...`"

// Endpoint returns the SQS server's URL, skipping the test under -short,
// and failing it otherwise, when it is unset.
func Endpoint(t testing.TB) string {
	t.Helper()
	return testenv.ServerURL(t, EndpointEnv, hint)
}

// Client returns a client for the SQS server with static dummy
// credentials. It skips the test under -short, and fails it otherwise,
// when IDEMQ_TEST_SQS_ENDPOINT is unset or nothing answers there.
func Client(t testing.TB) *sqs.Client {
	t.Helper()
	endpoint := Endpoint(t)
	client := NewClient(endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("%s=%s does not answer: %v", EndpointEnv, endpoint, err), hint)
	}
	return client
}

// NewClient returns a client for the SQS server at endpoint.
func NewClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// Queue is how NewQueue makes a queue.
type Queue struct {
	// FIFO makes a FIFO queue with content-based deduplication.
	FIFO bool
	// Visibility is the queue's visibility timeout, whole seconds.
	// Defaults to 30 s.
	Visibility time.Duration
}

var seq atomic.Int64

// NewQueue creates a queue unique to the test and returns its URL; the
// queue is deleted when the test ends.
func NewQueue(t testing.TB, client *sqs.Client, q Queue) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d-%s", os.Getpid(), seq.Add(1), sanitize(t.Name()))
	if len(name) > 70 {
		name = name[:70]
	}
	if q.Visibility == 0 {
		q.Visibility = 30 * time.Second
	}
	attrs := map[string]string{"VisibilityTimeout": strconv.Itoa(int(q.Visibility / time.Second))}
	if q.FIFO {
		name += ".fifo"
		attrs["FifoQueue"] = "true"
		attrs["ContentBasedDeduplication"] = "true"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("sqstest: create queue %s: %v", name, err)
	}
	url := aws.ToString(out.QueueUrl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	})
	return url
}

// Counts returns the queue's visible and in-flight (not visible) message
// counts.
func Counts(t testing.TB, client *sqs.Client, url string) (visible, inFlight int) {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
	})
	if err != nil {
		t.Fatalf("sqstest: queue attributes: %v", err)
	}
	visible, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ = strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return visible, inFlight
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}

// Held returns how many messages the queue holds, visible or in flight:
// the most of three readings, since the server's approximate counts can
// miss a message for a moment while a receive moves it. A message deleted
// is missed by every reading.
func Held(t testing.TB, client *sqs.Client, url string) int {
	t.Helper()
	most := 0
	for i := range 3 {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		v, f := Counts(t, client, url)
		most = max(most, v+f)
	}
	return most
}
