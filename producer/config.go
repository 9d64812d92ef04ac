package producer

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Defaults of Config's fields.
const (
	// DefaultMaxAttempts is how many times one message is sent at most
	// when its answers are lost: 5.
	DefaultMaxAttempts = 5
	// DefaultAttemptTimeout is how long one attempt waits for SQS's
	// answer before it is taken as lost and the message sent again: 20 s.
	DefaultAttemptTimeout = 20 * time.Second
	// DefaultRetryMin and DefaultRetryMax bound the capped exponential
	// back-off between attempts: 100 ms doubling up to 5 s, each with up to
	// half of it added at random.
	DefaultRetryMin = 100 * time.Millisecond
	DefaultRetryMax = 5 * time.Second
)

// MaxBatchEntries is the most messages one SendMessageBatch carries.
const MaxBatchEntries = 10

// Config is how a Producer puts the key in a message and sends it. New
// applies the options over the zero Config; the zero value takes every
// default.
type Config struct {
	// Request is who each request is, the same request.Identity the
	// handler is given (handler.WithRequest): where the key is put (its
	// KeyField, or its KeyAttribute) or what makes it (its KeyFields, its
	// KeyFunc), read back with the handler's own Reader. Its Namespace is
	// optional here: with it, Sent.RecordKey is the key the handler
	// claims. Defaults to the zero request.Identity: the body field
	// request.DefaultKeyField.
	Request request.Identity
	// GroupID is the MessageGroupId of a message that names none
	// (Message.GroupID). A FIFO queue needs one on every message; on a
	// standard queue a group id marks a fair queue's tenant. Defaults to
	// none.
	GroupID string
	// MaxMessageBytes is the largest body sent: the queue's
	// MaximumMessageSize. A larger one is refused with ErrTooLarge before
	// anything is sent. Defaults to MaxBatchBytes, itself 1 MiB by
	// default (SQS's largest); set it to 262,144 for a queue left at the
	// old limit.
	MaxMessageBytes int
	// MaxBatchBytes is the most body bytes one SendMessageBatch carries
	// (SQS's limit on a batch's total payload), at least MaxMessageBytes.
	// Defaults to queue.MaxMessageBytes.
	MaxBatchBytes int
	// MaxAttempts is how many times one message is sent at most while its
	// answer is lost (a timeout, a connection cut, a 5xx, a throttle).
	// Defaults to DefaultMaxAttempts.
	MaxAttempts int
	// AttemptTimeout is how long one attempt waits for its answer.
	// Defaults to DefaultAttemptTimeout.
	AttemptTimeout time.Duration
	// RetryMin and RetryMax bound the back-off between attempts. Default
	// to DefaultRetryMin and DefaultRetryMax.
	RetryMin, RetryMax time.Duration
}

// Option changes a Config.
type Option func(*Config)

// WithRequest sets Config.Request, whole: pass the handler's.
func WithRequest(id request.Identity) Option {
	id.KeyFields = slices.Clone(id.KeyFields)
	id.FingerprintFields = slices.Clone(id.FingerprintFields)
	return func(c *Config) { c.Request = id }
}

// WithKeyField sets Config.Request.KeyField.
func WithKeyField(field string) Option {
	return func(c *Config) { c.Request.KeyField = field }
}

// WithKeyFields sets Config.Request.KeyFields.
func WithKeyFields(fields ...string) Option {
	fields = slices.Clone(fields)
	return func(c *Config) { c.Request.KeyFields = fields }
}

// WithGroupID sets Config.GroupID.
func WithGroupID(id string) Option { return func(c *Config) { c.GroupID = id } }

// WithMaxMessageBytes sets Config.MaxMessageBytes.
func WithMaxMessageBytes(n int) Option { return func(c *Config) { c.MaxMessageBytes = n } }

// WithMaxBatchBytes sets Config.MaxBatchBytes.
func WithMaxBatchBytes(n int) Option { return func(c *Config) { c.MaxBatchBytes = n } }

// WithMaxAttempts sets Config.MaxAttempts.
func WithMaxAttempts(n int) Option { return func(c *Config) { c.MaxAttempts = n } }

// WithAttemptTimeout sets Config.AttemptTimeout.
func WithAttemptTimeout(d time.Duration) Option { return func(c *Config) { c.AttemptTimeout = d } }

// WithRetry sets Config.RetryMin and Config.RetryMax.
func WithRetry(min, max time.Duration) Option {
	return func(c *Config) { c.RetryMin, c.RetryMax = min, max }
}

// Validate reports the first setting of c that cannot work, as an
// *idem.ConfigError naming its field, or nil. New calls it.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks every value: the one place
// both happen.
func (c Config) resolve() (Config, error) {
	bad := func(field, value, format string, args ...any) (Config, error) {
		return Config{}, configError(field, value, fmt.Errorf(format, args...))
	}
	if err := c.Request.Validate(); err != nil {
		return Config{}, err
	}
	if c.MaxBatchBytes == 0 {
		c.MaxBatchBytes = queue.MaxMessageBytes
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = c.MaxBatchBytes
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.AttemptTimeout == 0 {
		c.AttemptTimeout = DefaultAttemptTimeout
	}
	if c.RetryMin == 0 {
		c.RetryMin = DefaultRetryMin
	}
	if c.RetryMax == 0 {
		c.RetryMax = max(DefaultRetryMax, c.RetryMin)
	}
	switch {
	case c.GroupID != "" && !validID(c.GroupID):
		return bad("GroupID", fmt.Sprintf("%q", c.GroupID), "must be 1 to %d letters, digits and punctuation", maxIDLen)
	case c.MaxMessageBytes < 1 || c.MaxMessageBytes > queue.MaxMessageBytes:
		return bad("MaxMessageBytes", fmt.Sprint(c.MaxMessageBytes), "must be in 1..%d", queue.MaxMessageBytes)
	case c.MaxBatchBytes < c.MaxMessageBytes || c.MaxBatchBytes > queue.MaxMessageBytes:
		return bad("MaxBatchBytes", fmt.Sprint(c.MaxBatchBytes), "must be in MaxMessageBytes %d..%d", c.MaxMessageBytes, queue.MaxMessageBytes)
	case c.MaxAttempts < 1:
		return bad("MaxAttempts", fmt.Sprint(c.MaxAttempts), "must be at least 1")
	case c.AttemptTimeout < 0:
		return bad("AttemptTimeout", c.AttemptTimeout.String(), "must not be negative")
	case c.RetryMin < 0:
		return bad("RetryMin", c.RetryMin.String(), "must not be negative")
	case c.RetryMax < c.RetryMin:
		return bad("RetryMax", c.RetryMax.String(), "must be at least RetryMin %s", c.RetryMin)
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "producer", Field: field, Value: value, Err: err}
}
