package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
)

// API is the part of the S3 client Blobs uses; *s3.Client satisfies it.
type API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

// Blobs is an idem.Blobs over one S3 bucket: the object of name n is
// prefix+n.
type Blobs struct {
	client API
	bucket string
	prefix string
}

var _ idem.Blobs = (*Blobs)(nil)

// New returns the Blobs keeping objects in bucket under prefix (which may
// be empty). It panics on a nil client or an empty bucket name.
func New(client API, bucket, prefix string) *Blobs {
	if client == nil {
		panic("s3blob: nil client")
	}
	if bucket == "" {
		panic("s3blob: empty bucket name")
	}
	return &Blobs{client: client, bucket: bucket, prefix: prefix}
}

// Put stores data as the object prefix+name. Putting it again (a retry
// whose first answer was lost) writes the same bytes.
func (b *Blobs) Put(ctx context.Context, name string, data []byte) error {
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(b.prefix + name),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return fmt.Errorf("s3blob: put s3://%s/%s%s: %w", b.bucket, b.prefix, name, err)
	}
	return nil
}

// Get returns the object prefix+name. A missing object is an error
// wrapping idem.ErrBlobMissing.
func (b *Blobs) Get(ctx context.Context, name string) ([]byte, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(b.prefix + name),
	})
	if err != nil {
		if missing(err) {
			return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: %w", b.bucket, b.prefix, name, idem.ErrBlobMissing)
		}
		return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: %w", b.bucket, b.prefix, name, err)
	}
	defer out.Body.Close()
	var buf bytes.Buffer
	if out.ContentLength != nil && *out.ContentLength > 0 {
		buf.Grow(int(*out.ContentLength))
	}
	if _, err := io.Copy(&buf, out.Body); err != nil {
		return nil, fmt.Errorf("s3blob: read s3://%s/%s%s: %w", b.bucket, b.prefix, name, err)
	}
	return buf.Bytes(), nil
}

// missing reports whether err says the object does not exist.
func missing(err error) bool {
	if _, ok := errors.AsType[*types.NoSuchKey](err); ok {
		return true
	}
	api, ok := errors.AsType[smithy.APIError](err)
	return ok && api.ErrorCode() == "NoSuchKey"
}
