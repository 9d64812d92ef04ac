package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/internal/testenv"
)

// s3EndpointEnv names the variable scripts/with-s3.sh exports: moto's S3.
const s3EndpointEnv = testenv.S3Endpoint

// testBucket makes a bucket of the test's own on the local S3 server and
// returns the server's endpoint, a client for it and the bucket's name.
func testBucket(t *testing.T) (string, *s3.Client, string) {
	t.Helper()
	const hint = "no local S3 server: use `make test`, or `scripts/with-s3.sh go test ./lambda`"
	endpoint := idemtest.ServerURL(t, s3EndpointEnv, hint)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
	var b [6]byte
	_, _ = rand.Read(b[:])
	bucket := "idemq-worker-" + hex.EncodeToString(b[:])
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		if _, probe := http.Get(endpoint); probe != nil {
			idemtest.Unavailable(t, s3EndpointEnv+"="+endpoint+" does not answer: "+err.Error(), hint)
		}
		t.Fatalf("CreateBucket: %v", err)
	}
	return endpoint, client, bucket
}

// objects returns the bucket's objects under prefix, by key.
func objects(t *testing.T, client *s3.Client, bucket, prefix string) map[string][]byte {
	t.Helper()
	list, err := client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatalf("ListObjectsV2: %v", err)
	}
	out := map[string][]byte{}
	for _, o := range list.Contents {
		got, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
		if err != nil {
			t.Fatalf("GetObject %s: %v", *o.Key, err)
		}
		var buf bytes.Buffer
		_, err = buf.ReadFrom(got.Body)
		got.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[*o.Key] = buf.Bytes()
	}
	return out
}

// With IDEMQ_BLOB_BUCKET, a large answer (Opticks, 567 KB of prose) is
// put compressed in the bucket under IDEMQ_BLOB_PREFIX on a local S3
// server (moto), path-style at IDEMQ_S3_ENDPOINT; a duplicate replays it
// from there, checked whole, without asking the provider again; an object
// that is gone or longer than its record says fails the duplicate, which
// comes back, rather than acknowledging it.
func TestWorkerOffloadsToBucket(t *testing.T) {
	t.Parallel()
	endpoint, client, bucket := testBucket(t)
	answer := string(testenv.Opticks(t))
	f := newFakeProvider(t)
	f.answer("a long one", answer)
	h, err := startup(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_KEY_FIELD", "idempotency_key", "IDEMQ_PROVIDER_URL", f.URL,
		"IDEMQ_NAMESPACE", "worker-test", "IDEMQ_BACKOFF", "false",
		"IDEMQ_BLOB_BUCKET", bucket, "IDEMQ_BLOB_PREFIX", "jobs/", "IDEMQ_OFFLOAD_ABOVE", fmt.Sprint(idem.DefaultOffloadAbove),
		// By name, not IP: the SDK goes path-style by itself for an IP.
		"IDEMQ_S3_ENDPOINT", strings.Replace(endpoint, "127.0.0.1", "localhost", 1),
	), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err != nil {
		t.Fatal(err)
	}
	msg := events.SQSMessage{MessageId: "m1", Body: `{"idempotency_key":"k1","model":"m1","prompt":"a long one"}`,
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}
	deliver := func() []events.SQSBatchItemFailure {
		t.Helper()
		resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
		if err != nil && !(errors.Is(err, handler.ErrBatchFailed) && len(resp.BatchItemFailures) == 1) {
			t.Fatalf("invocation: %v", err) // the batch's one message failed: it comes back either way
		}
		return resp.BatchItemFailures
	}
	for i := range 2 {
		if failed := deliver(); len(failed) != 0 {
			t.Fatalf("delivery %d failed: %+v", i, failed)
		}
	}
	if n := f.count("a long one"); n != 1 {
		t.Errorf("%d provider requests, want 1: the duplicate replays the result from the bucket", n)
	}
	objs := objects(t, client, bucket, "")
	if len(objs) != 1 {
		t.Fatalf("%d objects in the bucket, want one", len(objs))
	}
	var key string
	for k := range objs {
		key = k
	}
	stored := objs[key]
	if !strings.HasPrefix(key, "jobs/") {
		t.Errorf("object %s is not under the prefix jobs/", key)
	}
	value, err := (&idem.Record{Result: stored, Encoding: storekit.EncodingGzip}).DecodedResult(0)
	if err != nil {
		t.Fatalf("the object is not the gzipped result: %v", err)
	}
	var got completion
	if err := json.Unmarshal(value, &got); err != nil || got.Content != answer {
		t.Fatalf("the object holds %d bytes of content (%v), want the provider's %d", len(got.Content), err, len(answer))
	}
	if len(stored) >= len(answer)/2 {
		t.Errorf("the object is %d bytes for a %d-byte answer: not compressed", len(stored), len(answer))
	}

	// One byte more than the record says: the duplicate fails, and the
	// provider is not asked again.
	if _, err := client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(append(bytes.Clone(stored), 0))}); err != nil {
		t.Fatal(err)
	}
	if failed := deliver(); len(failed) != 1 {
		t.Errorf("a duplicate whose object is longer than its record was acknowledged")
	}
	if _, err := client.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		t.Fatal(err)
	}
	if failed := deliver(); len(failed) != 1 {
		t.Errorf("a duplicate whose object is gone was acknowledged")
	}
	if n := f.count("a long one"); n != 1 {
		t.Errorf("%d provider requests after the failed replays, want still 1", n)
	}
}

// A bucket that cannot be reached: the answer is not stored, so the
// message comes back (and the provider is asked again on its next
// delivery); nothing is acknowledged without its result kept.
func TestWorkerUnreachableBucket(t *testing.T) {
	t.Parallel()
	f := newFakeProvider(t)
	f.answer("a long one", string(testenv.Opticks(t)[:100<<10]))
	h, err := startup(context.Background(), env("IDEMQ_STORE", "memory", "IDEMQ_KEY_FIELD", "idempotency_key", "IDEMQ_PROVIDER_URL", f.URL,
		"IDEMQ_NAMESPACE", "worker-test", "IDEMQ_BACKOFF", "false",
		"IDEMQ_BLOB_BUCKET", "results", "IDEMQ_BLOB_PREFIX", "jobs/", "IDEMQ_S3_ENDPOINT", "http://127.0.0.1:1",
	), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err != nil {
		t.Fatal(err)
	}
	msg := events.SQSMessage{MessageId: "m1", Body: `{"idempotency_key":"k1","model":"m1","prompt":"a long one"}`,
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}
	for i := range 2 {
		resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
		if !errors.Is(err, handler.ErrBatchFailed) || len(resp.BatchItemFailures) != 1 {
			t.Fatalf("delivery %d: %+v, %v; want the message back, and the invocation failed", i, resp, err)
		}
	}
	if n := f.count("a long one"); n != 2 {
		t.Errorf("%d provider requests, want 2: the result was never kept, so the key was released", n)
	}
}
