package worker

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/sdkhttp"
)

// OpenBlobs returns the bucket of large results b names
// (IDEMQ_BLOB_BUCKET, IDEMQ_BLOB_PREFIX, IDEMQ_S3_ENDPOINT), as the worker
// opens it: an S3 client of cfg keeping conns idle connections (every
// record of a batch may put or get its result at once), path-style at the
// endpoint when one is set (a local server has no per-bucket host names).
// It makes no request. A setting s3blob refuses is its *idem.ConfigError.
func OpenBlobs(cfg aws.Config, b idemqenv.BlobSettings, conns int) (*s3blob.Blobs, error) {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.HTTPClient = sdkhttp.KeepConnections(o.HTTPClient, conns)
		if b.S3Endpoint != "" {
			o.BaseEndpoint = aws.String(b.S3Endpoint)
			o.UsePathStyle = true
		}
	})
	return s3blob.New(client, b.Bucket, b.Prefix)
}
