package consumer_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/internal/sqstest"
)

// The consumer's calls, as the SQS endpoint names them.
const (
	opReceive    = "ReceiveMessage"
	opDelete     = "DeleteMessageBatch"
	opVisibility = "ChangeMessageVisibilityBatch"
	opAttributes = "GetQueueAttributes"
)

// TestOneRetryLayer: each failed receive, delete and visibility extension
// the consumer counts and retries is one request at the endpoint, through
// a client as users build it (the SDK's standard retryer, 3 attempts a
// call): the consumer's loops are the only retries. Each call fails
// three times (a 500, a throttle, a dropped connection), then succeeds.
func TestOneRetryLayer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	msg := body("k1")
	sum := md5.Sum([]byte(msg))
	delivered := atomic.Bool{}
	srv := sqstest.NewFaultServer(t, func(op string, n int) sqstest.Fault {
		if n < 3 {
			return []sqstest.Fault{sqstest.ServerError, sqstest.Throttle, sqstest.Drop}[n]
		}
		return sqstest.Answer
	}, func(ctx context.Context, op string, in map[string]any) any {
		switch op {
		case opReceive:
			if delivered.CompareAndSwap(false, true) {
				return map[string]any{"Messages": []map[string]any{{"MessageId": "m1", "ReceiptHandle": "r1", "Body": msg,
					"MD5OfBody": hex.EncodeToString(sum[:]), "Attributes": map[string]string{"ApproximateReceiveCount": "1"}}}}
			}
			select { // a long poll that finds nothing
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			return map[string]any{}
		case opDelete, opVisibility:
			var ok []map[string]any
			for _, e := range in["Entries"].([]any) {
				ok = append(ok, map[string]any{"Id": e.(map[string]any)["Id"]})
			}
			return map[string]any{"Successful": ok, "Failed": []any{}}
		}
		return map[string]any{}
	})
	var running atomic.Pointer[consumer.Consumer]
	b.work = func(ctx context.Context, _ events.SQSMessage) error {
		// Run until an extension went through, after its failures.
		eventually(t, "a visibility extension", func() bool {
			c := running.Load()
			return c != nil && c.Stats().Extensions >= 1
		})
		return nil
	}
	c := b.start(srv.Client(), srv.URL+"/123456789012/jobs", b.handler(), func(c *consumer.Config) {
		c.RetryMin, c.RetryMax = time.Millisecond, time.Millisecond
		c.QueueARN, c.VisibilityTimeout = "arn:aws:sqs:us-east-1:123456789012:jobs", 2*time.Second
	})
	running.Store(c)
	eventually(t, "the message deleted", func() bool { return c.Stats().Deleted == 1 })
	st := c.Stats()
	for _, call := range []struct {
		op     string
		failed int64
	}{{opReceive, st.ReceiveErrors}, {opDelete, st.DeleteErrors}, {opVisibility, st.VisibilityErrors}} {
		if call.failed != 3 {
			t.Errorf("%s: the consumer counted %d failed calls, want 3, one per failed request", call.op, call.failed)
		}
	}
	if n := srv.Requests(opDelete); n != 4 {
		t.Errorf("%d %s requests, want 4: 3 failed, 1 answered", n, opDelete)
	}
}

// TestOneRetryLayerQueueAttributes: Start's reading of the queue's
// attributes, failing every time, reaches the endpoint once per attempt
// of its own.
func TestOneRetryLayerQueueAttributes(t *testing.T) {
	t.Parallel()
	srv := sqstest.NewFaultServer(t, func(string, int) sqstest.Fault { return sqstest.ServerError }, nil)
	c := must(consumer.New(srv.Client(), srv.URL+"/123456789012/jobs", setup(t).handler(),
		consumer.WithConfig(consumer.Config{Logger: testLogger(t), RetryMin: time.Millisecond, RetryMax: time.Millisecond})))
	if err := c.Start(context.Background()); !errors.Is(err, consumer.ErrQueue) {
		t.Fatalf("Start: %v, want ErrQueue", err)
	}
	if n := srv.Requests(opAttributes); n != 5 {
		t.Errorf("%d %s requests for one Start, want 5, its attempts", n, opAttributes)
	}
}
