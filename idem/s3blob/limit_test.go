package s3blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/s3blob"
)

// countReads counts the GetObject requests and the body bytes read from
// their answers; with hideLength it drops the length S3 announces, as a
// chunked answer would, so only the limited read can stop a long body.
type countReads struct {
	*s3.Client
	hideLength bool
	gets       atomic.Int32
	read       atomic.Int64
}

func (c *countReads) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	c.gets.Add(1)
	out, err := c.Client.GetObject(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	if c.hideLength {
		out.ContentLength = nil
	}
	out.Body = &countingBody{ReadCloser: out.Body, n: &c.read}
	return out, nil
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func putRaw(t *testing.T, client *s3.Client, bucket, key string, data []byte) {
	t.Helper()
	if _, err := client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
		t.Fatal(err)
	}
}

// An object longer than the size asked for (the record's pointer) is
// ErrBlobTooLarge, read no further than the size; one of the size, or
// shorter, is returned as it is (Do's checksum refuses a short one).
func TestGetReadsAtMostTheSize(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	data := make([]byte, 256<<10)
	_, _ = rand.Read(data)
	putRaw(t, client, name, "p/big", data)
	for _, hide := range []bool{false, true} {
		c := &countReads{Client: client, hideLength: hide}
		b := must(s3blob.New(c, name, "p/"))
		got, err := b.Get(t.Context(), "big", 1000)
		if !errors.Is(err, idem.ErrBlobTooLarge) || errors.Is(err, idem.ErrBlobMissing) || got != nil {
			t.Fatalf("hide length %v: Get of %d bytes as 1000 = %d bytes, %v; want ErrBlobTooLarge", hide, len(data), len(got), err)
		}
		// Announced length: nothing read; otherwise the limit and the
		// one byte past it (a read may fill a little more of the buffer
		// it is given, never the whole object).
		if n := c.read.Load(); (!hide && n != 0) || n >= int64(len(data))/2 {
			t.Errorf("hide length %v: %d body bytes read to refuse a %d-byte object as 1000", hide, n, len(data))
		}
		if got, err := b.Get(t.Context(), "big", len(data)); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("hide length %v: Get at its size = %d bytes, %v", hide, len(got), err)
		}
		if got, err := b.Get(t.Context(), "big", len(data)+10); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("hide length %v: Get with room to spare = %d bytes, %v", hide, len(got), err)
		}
	}
}

// WithMaxBytes caps both sides: a put over it is refused unsent as
// ErrResultTooLarge, and a size over it is ErrBlobTooLarge without a
// request.
func TestMaxBytes(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	c := &countReads{Client: client}
	b := must(s3blob.New(c, name, "", s3blob.WithMaxBytes(1024)))
	if err := b.Put(t.Context(), "over", make([]byte, 1025)); !errors.Is(err, idem.ErrResultTooLarge) {
		t.Fatalf("Put of 1025 bytes under a 1024 maximum = %v; want ErrResultTooLarge", err)
	}
	if _, err := client.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(name), Key: aws.String("over")}); err == nil {
		t.Fatal("the refused put reached the bucket")
	}
	if err := b.Put(t.Context(), "at", make([]byte, 1024)); err != nil {
		t.Fatalf("Put at the maximum: %v", err)
	}
	putRaw(t, client, name, "big", make([]byte, 4096))
	if _, err := b.Get(t.Context(), "big", 4096); !errors.Is(err, idem.ErrBlobTooLarge) || c.gets.Load() != 0 {
		t.Fatalf("Get of 4096 under a 1024 maximum = %v after %d requests; want ErrBlobTooLarge, none", err, c.gets.Load())
	}
	if got, err := b.Get(t.Context(), "at", 1024); err != nil || len(got) != 1024 {
		t.Fatalf("Get at the maximum = %d bytes, %v", len(got), err)
	}
}

func TestNewRefusesABadMaximum(t *testing.T) {
	t.Parallel()
	_, err := s3blob.New(s3.New(s3.Options{}), "b", "", s3blob.WithMaxBytes(-1))
	if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "s3blob" || bad.Field != "MaxBytes" {
		t.Fatalf("WithMaxBytes(-1): err %v; want an *idem.ConfigError naming s3blob's MaxBytes", err)
	}
	for name, f := range map[string]func() error{
		"client": func() error { _, err := s3blob.New(nil, "b", ""); return err },
		"bucket": func() error { _, err := s3blob.New(s3.New(s3.Options{}), "", ""); return err },
	} {
		if bad, ok := errors.AsType[*idem.ConfigError](f()); !ok || bad.Field != name {
			t.Errorf("%s: err %v; want an *idem.ConfigError naming it", name, f())
		}
	}
}

// Through Do: an object replaced by a longer one fails the replay with
// ErrBlobTooLarge, not the checksum's error (which a same-size change
// gets), and never as an empty or truncated success; a result over the
// maximum settles its key without it.
func TestDoReplayOfALongerObject(t *testing.T) {
	t.Parallel()
	client, name := bucket(t)
	store := must(memstore.New())
	opts := []idem.Option{idem.WithBlobs(must(s3blob.New(client, name, "idem/", s3blob.WithMaxBytes(1<<20)))), func(c *idem.Config) { c.CompressAbove = -1 }}
	value := make([]byte, 64<<10)
	_, _ = rand.Read(value)
	work := func(context.Context) ([]byte, error) { return value, nil }
	if r, err := idem.Do(t.Context(), store, "k#1", "", work, opts...); r.Outcome != idem.Executed || err != nil {
		t.Fatalf("Do = %v, %v", r.Outcome, err)
	}
	list, err := client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(name)})
	if err != nil || len(list.Contents) != 1 {
		t.Fatalf("ListObjectsV2: %v", err)
	}
	key := *list.Contents[0].Key

	flipped := bytes.Clone(value)
	flipped[0] ^= 1
	putRaw(t, client, name, key, flipped)
	r, err := idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if !errors.Is(err, idem.ErrUnreadableResult) || errors.Is(err, idem.ErrBlobTooLarge) || r.Value != nil {
		t.Fatalf("replay of a same-size other object = %v, %d bytes, %v; want the checksum's ErrUnreadableResult", r.Outcome, len(r.Value), err)
	}

	putRaw(t, client, name, key, append(bytes.Clone(value), value...))
	r, err = idem.Do(t.Context(), store, "k#1", "", work, opts...)
	if !errors.Is(err, idem.ErrUnreadableResult) || !errors.Is(err, idem.ErrBlobTooLarge) || r.Outcome != 0 || r.Value != nil {
		t.Fatalf("replay of a longer object = %v, %d bytes, %v; want ErrBlobTooLarge", r.Outcome, len(r.Value), err)
	}

	huge := func(context.Context) ([]byte, error) { return make([]byte, 2<<20), nil }
	r, err = idem.Do(t.Context(), store, "k#2", "", huge, opts...)
	if r.Outcome != idem.Executed || !r.Omitted || !errors.Is(err, idem.ErrResultTooLarge) {
		t.Fatalf("Do of a result over the maximum = %v (omitted %v), %v; want Executed without it", r.Outcome, r.Omitted, err)
	}
	r, err = idem.Do(t.Context(), store, "k#2", "", huge, opts...)
	if r.Outcome != idem.Replayed || !r.Omitted || err != nil {
		t.Fatalf("its duplicate = %v (omitted %v), %v; want Replayed without a value", r.Outcome, r.Omitted, err)
	}
}
