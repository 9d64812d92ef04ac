package pipeline

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/idem"
)

// blobRun is a run's result bucket on the local S3 server.
type blobRun struct {
	client *s3.Client
	bucket string
	blobs  idem.Blobs // the workers' view of it, for the check's replays
}

// blobPrefix is the workers' IDEMQ_BLOB_PREFIX (their default).
const blobPrefix = "idemq/"

// objects counts the bucket's objects and their bytes.
func (b *blobRun) objects(ctx context.Context) (n int, bytes int64, err error) {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("pipeline: list the result bucket: %w", err)
		}
		for _, o := range page.Contents {
			n++
			bytes += aws.ToInt64(o.Size)
		}
	}
	return n, bytes, nil
}

// empty deletes the bucket's objects and the bucket (moto keeps them in
// memory for as long as it runs).
func (b *blobRun) empty(ctx context.Context) {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return
		}
		for _, o := range page.Contents {
			_, _ = b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.bucket), Key: o.Key})
		}
	}
	_, _ = b.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(b.bucket)})
}
