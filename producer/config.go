package producer

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Defaults of Config's fields.
const (
	// defaultMaxAttempts is how many times one message is sent at most
	// when its answers are lost: 5.
	defaultMaxAttempts = 5
	// defaultAttemptTimeout is how long one attempt waits for SQS's
	// answer before it is taken as lost and the message sent again: 20 s.
	defaultAttemptTimeout = 20 * time.Second
)

// maxBatchEntries is the most messages one SendMessageBatch carries.
const maxBatchEntries = 10

// Config is how a Producer puts the key in a message and sends it. Every
// setting is declared, defaulted and checked here, once, as every idemq
// package does it (docs/options.md): a zero field is its default, a
// negative one is refused, and the options only set fields. New applies
// the options over the zero Config and resolves it once, refusing every
// setting that cannot work at once; Validate is that step without its
// result. WithConfig passes a Config whole.
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
	// answer is lost (a timeout, a connection cut, a 5xx, a throttle): the
	// only retries of the send, each attempt one request (the SDK's
	// retryer makes one attempt of each). Defaults to 5.
	MaxAttempts int
	// AttemptTimeout is how long one attempt waits for its answer.
	// Defaults to 20 s.
	AttemptTimeout time.Duration
	// RetryMin and RetryMax bound the capped exponential back-off between
	// attempts, each wait with up to half of it added at random: the same
	// back-off as the consumer's. Default to 100 ms and 5 s.
	RetryMin, RetryMax time.Duration
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option {
	cfg.Request = cfg.Request.Clone()
	return func(c *Config) { *c = cfg }
}

// WithRequest sets Config.Request, whole: pass the handler's. Defaults to
// the zero request.Identity: the key in the body field
// request.DefaultKeyField.
func WithRequest(id request.Identity) Option {
	id = id.Clone()
	return func(c *Config) { c.Request = id }
}

// WithGroupID sets Config.GroupID, the MessageGroupId of a message that
// names none. Defaults to none.
func WithGroupID(id string) Option { return func(c *Config) { c.GroupID = id } }

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field (a Request field's names package
// "request"), joined (errors.Join); nil when there is none. It
// is the resolve step New runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks every value: the one place
// both happen. It returns an error joining every setting that cannot
// work.
func (c Config) resolve() (Config, error) {
	var errs []error
	bad := func(field, value, format string, args ...any) {
		errs = append(errs, configError(field, value, fmt.Errorf(format, args...)))
	}
	errs = append(errs, c.Request.Validate())
	if c.MaxBatchBytes == 0 {
		c.MaxBatchBytes = queue.MaxMessageBytes
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = min(c.MaxBatchBytes, queue.MaxMessageBytes)
		if c.MaxMessageBytes < 1 { // refused as MaxBatchBytes
			c.MaxMessageBytes = queue.MaxMessageBytes
		}
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = defaultMaxAttempts
	}
	if c.AttemptTimeout == 0 {
		c.AttemptTimeout = defaultAttemptTimeout
	}
	if c.RetryMin == 0 {
		c.RetryMin = queue.DefaultRetryMin
	}
	if c.RetryMax == 0 {
		c.RetryMax = max(queue.DefaultRetryMax, c.RetryMin)
	}
	if c.GroupID != "" && !validID(c.GroupID) {
		bad("GroupID", fmt.Sprintf("%q", c.GroupID), "must be 1 to %d letters, digits and punctuation", maxIDLen)
	}
	messageOK := c.MaxMessageBytes >= 1 && c.MaxMessageBytes <= queue.MaxMessageBytes
	if !messageOK {
		bad("MaxMessageBytes", fmt.Sprint(c.MaxMessageBytes), "must be in 1..%d", queue.MaxMessageBytes)
	}
	if c.MaxBatchBytes > queue.MaxMessageBytes || c.MaxBatchBytes < 1 || (messageOK && c.MaxBatchBytes < c.MaxMessageBytes) {
		bad("MaxBatchBytes", fmt.Sprint(c.MaxBatchBytes), "must be in MaxMessageBytes %d..%d", c.MaxMessageBytes, queue.MaxMessageBytes)
	}
	if c.MaxAttempts < 1 {
		bad("MaxAttempts", fmt.Sprint(c.MaxAttempts), "must be at least 1")
	}
	if c.AttemptTimeout < 0 {
		bad("AttemptTimeout", c.AttemptTimeout.String(), "must not be negative")
	}
	switch {
	case c.RetryMin < 0:
		bad("RetryMin", c.RetryMin.String(), "must not be negative")
	case c.RetryMax < c.RetryMin:
		bad("RetryMax", c.RetryMax.String(), "must be at least RetryMin %s", c.RetryMin)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "producer", Field: field, Value: value, Err: err}
}
