package worker_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/sqstest"
	"github.com/idemq/idemq/internal/testenv"
	"github.com/idemq/idemq/worker"
)

// s3EndpointEnv names the variable scripts/with-s3.sh exports: moto's S3.
const s3EndpointEnv = testenv.S3Endpoint

// A result above IDEMQ_OFFLOAD_ABOVE goes to IDEMQ_BLOB_BUCKET under
// IDEMQ_BLOB_PREFIX, at IDEMQ_S3_ENDPOINT (moto's S3), and the duplicate
// replays it from there.
func TestWorkerOffloadsToBucket(t *testing.T) {
	t.Parallel()
	const hint = "no local S3 server: use `make test`, or `scripts/with-s3.sh go test ./worker`"
	endpoint := idemtest.ServerURL(t, s3EndpointEnv, hint)
	client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", "")})
	var b [6]byte
	_, _ = rand.Read(b[:])
	bucket := "idemq-worker-lib-" + hex.EncodeToString(b[:])
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		if _, probe := http.Get(endpoint); probe != nil {
			idemtest.Unavailable(t, s3EndpointEnv+"="+endpoint+" does not answer: "+err.Error(), hint)
		}
		t.Fatalf("CreateBucket: %v", err)
	}
	large := make([]byte, 64<<10) // random: gzip does not shrink it under the offload size
	_, _ = rand.Read(large)
	var runs atomic.Int32
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { runs.Add(1); return large, nil }
	var replayed []byte // what the duplicate is handed, read back from the bucket
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_BACKOFF": "false",
		"IDEMQ_BLOB_BUCKET": bucket, "IDEMQ_BLOB_PREFIX": "results/", "IDEMQ_OFFLOAD_ABOVE": "1000",
		"IDEMQ_S3_ENDPOINT": strings.Replace(endpoint, "127.0.0.1", "localhost", 1), // by name: the SDK goes path-style by itself for an IP
	}), fn, quiet, testAWS, worker.WithHandlerOptions(handler.WithReplayHook(func(_ context.Context, _ events.SQSMessage, result []byte) error {
		replayed = result
		return nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 2 {
		resp, err := w.Handler(context.Background(), batch(`{"idempotency_key":"big"}`))
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("delivery %d: %+v, %v", i, resp, err)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("%d runs, want 1", runs.Load())
	}
	list, err := client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil || len(list.Contents) != 1 || !strings.HasPrefix(aws.ToString(list.Contents[0].Key), "results/") {
		t.Fatalf("objects %+v, %v; want one under results/", list, err)
	}
	rec, ok, err := w.Store.Get(context.Background(), idem.Key("worker-test#big"))
	if err != nil || !ok || len(rec.Result) >= len(large) {
		t.Errorf("record of %d result bytes (%v, %v); want a pointer to the object, not the result", len(rec.Result), ok, err)
	}
	if !bytes.Equal(replayed, large) {
		t.Errorf("the duplicate was handed %d bytes, want the %d of the result", len(replayed), len(large))
	}
}

// In consumer mode (IDEMQ_CONSUMER_QUEUE_URL, moto's SQS) Run receives,
// runs each key once and deletes the messages, until its context ends.
func TestWorkerConsumerMode(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	queueURL := sqstest.NewQueue(t, client, sqstest.Queue{})
	var c counter
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_SQS_ENDPOINT": sqstest.Endpoint(t),
		"IDEMQ_CONSUMER_QUEUE_URL": queueURL, "IDEMQ_CONSUMER_GRACE_PERIOD": "2s",
	}), c.fn, quiet, testAWS)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Consumer == nil {
		t.Fatal("no consumer")
	}
	bodies := []string{`{"idempotency_key":"a"}`, `{"idempotency_key":"a"}`, `{"idempotency_key":"b"}`}
	for _, body := range bodies {
		if _, err := client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	// Wait for the queue to empty (the runs are counted after): a
	// deadline only bounds a run that never ends.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		visible, inFlight := sqstest.Counts(t, client, queueURL)
		if visible == 0 && inFlight == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue still holds %d visible and %d in flight", visible, inFlight)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	for _, key := range []string{bodies[0], bodies[2]} {
		if n := c.count(key); n != 1 {
			t.Errorf("%s ran %d times, want once", key, n)
		}
	}
}
