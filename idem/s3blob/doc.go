// Package s3blob keeps idem's large results in Amazon S3: an idem.Blobs
// over a bucket, for Config.Blobs (idem.WithBlobs). It is the only package
// of idemq that imports the S3 SDK.
//
//	blobs, err := s3blob.New(s3.NewFromConfig(cfg), "my-results", "idem/")
//	h := handler.New(store, work, handler.WithIdem(idem.WithBlobs(blobs)))
//
// Objects are written once under names unique to an execution and never
// deleted by idemq: give the bucket (or the prefix) a lifecycle rule that
// expires them no sooner than the records (idem.Config.Expiry, 40 days by
// default), and grant the worker s3:PutObject and s3:GetObject on it, and
// s3:ListBucket: without it S3 answers a missing object with 403 Access
// Denied, which a replay reports as an error of the blob store rather than
// as a missing object (it fails either way).
//
// A replay reads at most the size the record's pointer gives, and no object
// over WithMaxBytes (DefaultMaxBytes, 64 MiB): a longer object fails the
// replay with idem.ErrBlobTooLarge (and idem.ErrUnreadableResult), read no
// further than the limit, and a result over the maximum is never put, so
// Do completes its key without it (idem.ErrResultTooLarge).
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package s3blob
