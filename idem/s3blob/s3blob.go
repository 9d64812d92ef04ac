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
	"github.com/idemq/idemq/internal/optkit"
)

// API is the part of the S3 client Blobs uses; *s3.Client satisfies it.
type API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

// DefaultMaxBytes is the longest object Blobs puts or reads: 64 MiB, well
// above the answers idemq is priced for (4 MiB) and idem's
// idem.Config.MaxDecodedBytes (16 MiB), well below a Lambda function's memory.
const DefaultMaxBytes = 64 << 20

// Blobs is an idem.Blobs over one S3 bucket: the object of name n is
// prefix+n.
type Blobs struct {
	client   API
	bucket   string
	prefix   string
	maxBytes int
}

var _ idem.Blobs = (*Blobs)(nil)

// Config is a Blobs' settings, besides the client, bucket and prefix
// that New takes, declared, defaulted and checked here as every idemq
// package does it (docs/options.md): a zero field is its default, a
// negative one is refused, the options only set fields, and WithConfig
// passes a Config whole. The zero value takes every default.
type Config struct {
	// MaxBytes is the longest object Blobs puts or reads, in bytes: Put
	// refuses longer data with an error wrapping idem.ErrResultTooLarge
	// (so Do completes the key without the result rather than run the
	// work again), and Get reads no more, failing with
	// idem.ErrBlobTooLarge. Defaults to DefaultMaxBytes.
	MaxBytes int
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithMaxBytes sets Config.MaxBytes, the longest object put or read.
// Defaults to DefaultMaxBytes.
func WithMaxBytes(n int) Option { return func(c *Config) { c.MaxBytes = n } }

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. It is the resolve step New runs, without its
// result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	var err error
	if c.MaxBytes, err = optkit.ByteLimit("s3blob", "MaxBytes", c.MaxBytes, DefaultMaxBytes); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "s3blob", Field: field, Value: value, Err: err}
}

// New returns the Blobs keeping objects in bucket under prefix (which may
// be empty). It returns an error joining an *idem.ConfigError for every
// bad setting (joined): a nil client or option, an empty
// bucket name, a setting Validate refuses.
func New(client API, bucket, prefix string, opts ...Option) (*Blobs, error) {
	var errs []error
	if c, ok := client.(*s3.Client); client == nil || ok && c == nil {
		errs = append(errs, configError("client", "", optkit.ErrNil))
	}
	if bucket == "" {
		errs = append(errs, configError("bucket", `""`, errors.New("must not be empty")))
	}
	c, err := optkit.ApplyOptions("s3blob", opts)
	errs = append(errs, err)
	c, err = c.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return &Blobs{client: client, bucket: bucket, prefix: prefix, maxBytes: c.MaxBytes}, nil
}

// Put stores data as the object prefix+name. Putting it again (a retry
// whose first answer was lost) writes the same bytes. Data longer than the
// maximum (WithMaxBytes) is refused, unsent, with an error wrapping
// idem.ErrResultTooLarge: no replay could read it back.
func (b *Blobs) Put(ctx context.Context, name string, data []byte) error {
	if len(data) > b.maxBytes {
		return fmt.Errorf("s3blob: put s3://%s/%s%s: %d bytes, over the %d-byte maximum (WithMaxBytes): %w", b.bucket, b.prefix, name, len(data), b.maxBytes, idem.ErrResultTooLarge)
	}
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

// Get returns the object prefix+name, reading at most size bytes (the
// length Put stored, from the record's pointer). A missing object is an
// error wrapping idem.ErrBlobMissing; an object longer than size, or a
// size over the maximum (WithMaxBytes), is an error wrapping
// idem.ErrBlobTooLarge: Get stops at the limit, or does not ask at all,
// rather than read an unbounded object into memory.
func (b *Blobs) Get(ctx context.Context, name string, size int) ([]byte, error) {
	if size > b.maxBytes {
		return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: %d bytes expected, over the %d-byte maximum (WithMaxBytes): %w", b.bucket, b.prefix, name, size, b.maxBytes, idem.ErrBlobTooLarge)
	}
	if size < 0 {
		return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: a negative size (%d) expected", b.bucket, b.prefix, name, size)
	}
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
	// The length S3 announces refuses a long object before its body is
	// read; the limited read holds when it announces none, or lies.
	if out.ContentLength != nil && *out.ContentLength > int64(size) {
		return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: %d bytes, longer than the %d expected: %w", b.bucket, b.prefix, name, *out.ContentLength, size, idem.ErrBlobTooLarge)
	}
	var buf bytes.Buffer
	if out.ContentLength != nil && *out.ContentLength > 0 {
		buf.Grow(int(*out.ContentLength) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(out.Body, int64(size)+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("s3blob: read s3://%s/%s%s: %w", b.bucket, b.prefix, name, err)
	case n > int64(size):
		return nil, fmt.Errorf("s3blob: get s3://%s/%s%s: longer than the %d bytes expected: %w", b.bucket, b.prefix, name, size, idem.ErrBlobTooLarge)
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
