package s3blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/s3blob"
)

// A result too large for a record goes to the bucket; the record keeps a
// pointer to it, and a duplicate's replay reads it back. A deployed worker
// passes s3.NewFromConfig(cfg); here a bucket in memory stands in.
func Example() {
	bucket := &memoryBucket{objects: map[string][]byte{}}
	blobs, err := s3blob.New(bucket, "my-results", "idem/")
	if err != nil {
		log.Fatal(err)
	}
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	answer := incompressible(20_000) // past idem.DefaultOffloadAbove once gzipped
	key, _ := idem.ClientKey("summariser", "request-45")
	for range 2 { // the request, then its duplicate
		r, err := idem.Do(context.Background(), store, key, "", func(context.Context) ([]byte, error) { return answer, nil }, idem.WithBlobs(blobs))
		fmt.Println(r.Outcome, len(r.Value), bytes.Equal(r.Value, answer), err)
	}
	fmt.Println("objects in the bucket:", bucket.count())
	// Output:
	// executed 20000 true <nil>
	// replayed 20000 true <nil>
	// objects in the bucket: 1
}

// memoryBucket is the two calls of the S3 client s3blob makes, on a map.
type memoryBucket struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (b *memoryBucket) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	data, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.objects[aws.ToString(in.Bucket)+"/"+aws.ToString(in.Key)] = data
	return &s3.PutObjectOutput{}, nil
}

func (b *memoryBucket) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, ok := b.objects[aws.ToString(in.Bucket)+"/"+aws.ToString(in.Key)]
	if !ok {
		return nil, &types.NoSuchKey{}
	}
	return &s3.GetObjectOutput{Body: io.NopCloser(bytes.NewReader(data)), ContentLength: aws.Int64(int64(len(data)))}, nil
}

func (b *memoryBucket) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.objects)
}

// incompressible returns n bytes gzip cannot shrink: a SHA-256 chain.
func incompressible(n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	sum := sha256.Sum256(nil)
	for len(out) < n {
		sum = sha256.Sum256(sum[:])
		out = append(out, sum[:]...)
	}
	return out[:n]
}
