package s3blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/internal/testenv"
)

// endpointEnv names the variable scripts/with-s3.sh exports.
const endpointEnv = testenv.S3Endpoint

const hint = "no local S3 server: use `make test`, or `scripts/with-s3.sh go test ./idem/s3blob`"

// bucket returns a client for the local S3 server and a new bucket of the
// test's own. It skips the test under -short, and fails it otherwise, when
// IDEMQ_TEST_S3_ENDPOINT is unset or nothing answers there.
func bucket(t *testing.T) (*s3.Client, string) {
	t.Helper()
	endpoint := os.Getenv(endpointEnv)
	if endpoint == "" {
		unavailable(t, endpointEnv+" is not set")
	}
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
	})
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "idemq-test-" + hex.EncodeToString(b[:])
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		if _, probe := http.Get(endpoint); probe != nil {
			unavailable(t, endpointEnv+"="+endpoint+" does not answer: "+err.Error())
		}
		t.Fatalf("CreateBucket: %v", err)
	}
	return client, name
}

func unavailable(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s; %s", why, hint)
	}
	t.Fatalf("%s; %s", why, hint)
}

func TestPutGet(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	b := must(s3blob.New(client, name, "results/"))
	data := make([]byte, 100<<10)
	_, _ = rand.Read(data)
	if err := b.Put(t.Context(), "k/1", data); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(t.Context(), "k/1", len(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v; want the %d put", len(got), err, len(data))
	}
	out, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(name), Key: aws.String("results/k/1")})
	if err != nil {
		t.Fatalf("the object is not under the prefix: %v", err)
	}
	out.Body.Close()
}

func TestGetMissing(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	_, err := must(s3blob.New(client, name, "")).Get(t.Context(), "absent", 10)
	if !errors.Is(err, idem.ErrBlobMissing) {
		t.Fatalf("Get of a missing object = %v; want ErrBlobMissing", err)
	}
}

// loseAnswers applies PutObject and then reports a failure, the first
// `lose` times: the request reached S3, its answer did not come back.
type loseAnswers struct {
	*s3.Client
	lose atomic.Int32
}

func (l *loseAnswers) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	out, err := l.Client.PutObject(ctx, in, opts...)
	if err == nil && l.lose.Add(-1) >= 0 {
		return nil, errors.New("connection reset (the put was applied)")
	}
	return out, err
}

func TestPutRetriedAfterALostAnswer(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	lossy := &loseAnswers{Client: client}
	lossy.lose.Store(1)
	b := must(s3blob.New(lossy, name, ""))
	data := []byte(strings.Repeat("x", 10_000))
	if err := b.Put(t.Context(), "n", data); err == nil {
		t.Fatal("the lost answer was not reported")
	}
	// The same put again, as a retry sends it: the same name, the same
	// bytes, applied twice, one object.
	if err := b.Put(t.Context(), "n", data); err != nil {
		t.Fatalf("retried put: %v", err)
	}
	if got, err := b.Get(t.Context(), "n", len(data)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
}

func TestDoWithS3(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	lossy := &loseAnswers{Client: client}
	lossy.lose.Store(1)
	store := must(memstore.New())
	opts := []idem.Option{idem.WithBlobs(must(s3blob.New(lossy, name, "idem/")))}
	big := make([]byte, 64<<10)
	_, _ = rand.Read(big)
	work := func(context.Context) ([]byte, error) { return big, nil }

	// The first put's answer is lost: the result is not stored and the key
	// is released; its object is left to expire.
	r, err := idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if r.Outcome != idem.NotStored || err == nil {
		t.Fatalf("Do = %v, %v; want NotStored", r.Outcome, err)
	}
	r, err = idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if r.Outcome != idem.Executed || err != nil {
		t.Fatalf("retry = %v, %v; want Executed", r.Outcome, err)
	}
	list, err := client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(name)})
	if err != nil || len(list.Contents) != 2 {
		t.Fatalf("ListObjectsV2 = %v; want two objects, one per execution", err)
	}
	r, err = idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if r.Outcome != idem.Replayed || err != nil || !bytes.Equal(r.Value, big) {
		t.Fatalf("replay = %v, %d bytes, %v", r.Outcome, len(r.Value), err)
	}

	// The winner's object gone (a lifecycle rule shorter than the records,
	// say): the replay fails, it does not come back empty.
	rec, _, _ := store.Get(t.Context(), "k#1")
	for _, o := range list.Contents {
		if strings.Contains(string(rec.Result), strings.TrimPrefix(*o.Key, "idem/")) {
			if _, err := client.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(name), Key: o.Key}); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, err = idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if r.Outcome != 0 || !errors.Is(err, idem.ErrUnreadableResult) || !errors.Is(err, idem.ErrBlobMissing) {
		t.Fatalf("replay of a deleted object = %v, %v; want ErrUnreadableResult", r.Outcome, err)
	}
}
