package consumer

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
)

// Defaults of Config's fields.
const (
	// DefaultMaxBatches is how many batches run at once: 4, so at most
	// 40 messages are in flight with queue.DefaultBatchSize.
	DefaultMaxBatches = 4
	// defaultWaitTime is the long poll of each receive: 20 s, the most SQS
	// allows.
	defaultWaitTime = 20 * time.Second
	// DefaultMaxRunTime is the deadline each batch's handler runs under,
	// like a Lambda function's timeout: 15 minutes, Lambda's longest.
	DefaultMaxRunTime = 15 * time.Minute
	// DefaultGracePeriod is how long Run lets running work finish once its
	// context ends (SIGTERM) before cancelling it: 20 s, inside the 30 s
	// ECS and Kubernetes wait between SIGTERM and SIGKILL.
	DefaultGracePeriod = 20 * time.Second
	// defaultCancelWait is how long Run waits, after cancelling the work
	// left when the grace period ends, for it to release its claims and
	// for the deletes of the work that finished: 5 s.
	defaultCancelWait = 5 * time.Second
	// defaultDeleteTimeout is how long the deletes of one batch are
	// retried before the messages they could not delete are left to come
	// back: 30 s.
	defaultDeleteTimeout = 30 * time.Second
	// defaultUnhealthyAfter is how many receives in a row must fail before
	// Healthy reports the consumer unhealthy: 3.
	defaultUnhealthyAfter = 3
	// DefaultShortLease is the short lease of a claim the handler makes
	// without a lease of its own (idem.Config.Lease unset): 1 minute, so a
	// key whose worker died (kill -9, a lost node) is free a minute after
	// its last heartbeat at most. (idem.DefaultLease is another: the lease
	// of a claim whose context has no deadline.)
	DefaultShortLease = time.Minute
	// DefaultHeartbeat is how often such a claim's lease is renewed while
	// its work runs: every 20 s, three times a lease, so two lost or slow
	// extensions in a row do not lose the key. Each is one conditional
	// write to the store (an UpdateItem on DynamoDB): 3 a minute for each
	// record whose work runs, none for work shorter than 20 s.
	DefaultHeartbeat = 20 * time.Second
)

// Limits SQS places on the settings (its longest visibility timeout is
// queue.MaxVisibility).
const (
	maxBatchSize = 10
	maxWaitTime  = 20 * time.Second
	// minVisibility is the shortest visibility timeout the consumer can
	// keep extending: it extends every half of it, in whole seconds.
	minVisibility = 2 * time.Second
)

// Config is how a Consumer receives, runs, extends and deletes. Every
// setting is declared, defaulted and checked here, once, as every idemq
// package does it (docs/options.md): a zero field is its default, a
// negative one is refused unless the field says it turns something off,
// and the options only set fields. New applies the options over the zero
// Config and resolves it once, refusing every setting that cannot work at
// once; Validate is that step without its result. WithConfig passes a
// Config whole, and an Option of your own sets one field:
//
//	c, err := consumer.New(client, queueURL, h, consumer.WithConfig(consumer.Config{MaxBatches: 8, MaxRunTime: time.Hour}))
type Config struct {
	// BatchSize is how many messages one receive asks for (1 to 10).
	// Defaults to queue.DefaultBatchSize, the most SQS hands out at once.
	BatchSize int
	// MaxBatches is how many batches run at once; with BatchSize it bounds
	// the messages in flight. A receive is only made when a batch may
	// start. Defaults to DefaultMaxBatches.
	MaxBatches int
	// WaitTime is each receive's long poll (whole seconds, up to 20 s).
	// Defaults to 20 s.
	WaitTime time.Duration
	// VisibilityTimeout is how long a received message stays hidden, and
	// how far each extension pushes it (2 s to 12 h, whole seconds). The
	// consumer extends the messages of a running batch every half of it.
	// Defaults to the queue's, read once by Start.
	VisibilityTimeout time.Duration
	// MaxRunTime is the deadline each batch's handler runs under: the
	// context handed to the handler ends MaxRunTime after the receive, as
	// a Lambda invocation's ends at the function's timeout. The handler's
	// deadline guard and the claim's default lease (the time left plus
	// idem's LeaseMargin) are computed from it (see the package doc).
	// MaxRunTime plus VisibilityTimeout must be at most 12 h, the longest
	// SQS keeps a received message hidden. Defaults to DefaultMaxRunTime.
	MaxRunTime time.Duration
	// GracePeriod is how long Run lets running work finish after its
	// context ends before cancelling it. Defaults to DefaultGracePeriod.
	GracePeriod time.Duration
	// DeleteTimeout is how long the deletes of one batch are retried.
	// Defaults to 30 s.
	DeleteTimeout time.Duration
	// RetryMin and RetryMax bound the capped exponential back-off after a
	// failed receive, delete, visibility change or reading of the queue,
	// before the consumer's loop sends it again, each wait with up to half
	// of it added at random: the same back-off as the producer's. These
	// loops are the only retries of the calls: each call is one request
	// (the SDK's retryer makes one attempt of each). Default to 100 ms and
	// 5 s.
	RetryMin, RetryMax time.Duration
	// QueueARN is the queue's ARN, put in each record's EventSourceARN
	// (and AWSRegion) as Lambda does; a FIFO queue's ends in ".fifo",
	// which is how the handler knows to keep group order. Defaults to the
	// queue's, read once by Start with GetQueueAttributes.
	QueueARN string
	// UnhealthyAfter is how many receives in a row must fail before
	// Healthy reports an error. Defaults to 3.
	UnhealthyAfter int
	// Lease is the lease of the claims the handler makes without a lease
	// of its own (idem.Config.Lease unset), renewed every Heartbeat while
	// their work runs (a default lease in each batch's context, which idem.Do reads):
	// a key whose worker died is free Lease after the last
	// renewal. A negative Lease turns this off: such
	// claims then last the batch's time left plus idem's LeaseMargin,
	// about MaxRunTime, as under Lambda. Defaults to DefaultShortLease.
	Lease time.Duration
	// Heartbeat is how often the lease is renewed: at most half of Lease.
	// Each renewal is one conditional write to the store per running
	// record. Defaults to DefaultHeartbeat (with the default Lease; else a
	// third of Lease).
	Heartbeat time.Duration
	// Logger receives the consumer's logs. Defaults to slog.Default().
	Logger *slog.Logger
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithLogger sets Config.Logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. VisibilityTimeout may be 0 (the queue's, checked
// when Start reads it). It is the resolve step New runs, without its
// result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and returns an error joining an
// *idem.ConfigError, naming the setting, for each that cannot work. It is
// the one place defaults are written and values checked.
func (c Config) resolve() (Config, error) {
	if c.BatchSize == 0 {
		c.BatchSize = queue.DefaultBatchSize
	}
	if c.MaxBatches == 0 {
		c.MaxBatches = DefaultMaxBatches
	}
	if c.WaitTime == 0 {
		c.WaitTime = defaultWaitTime
	}
	if c.MaxRunTime == 0 {
		c.MaxRunTime = DefaultMaxRunTime
	}
	if c.GracePeriod == 0 {
		c.GracePeriod = DefaultGracePeriod
	}
	if c.DeleteTimeout == 0 {
		c.DeleteTimeout = defaultDeleteTimeout
	}
	if c.RetryMin == 0 {
		c.RetryMin = queue.DefaultRetryMin
	}
	if c.RetryMax == 0 {
		c.RetryMax = max(queue.DefaultRetryMax, c.RetryMin)
	}
	if c.UnhealthyAfter == 0 {
		c.UnhealthyAfter = defaultUnhealthyAfter
	}
	switch {
	case c.Lease == 0 && c.Heartbeat == 0:
		c.Lease, c.Heartbeat = DefaultShortLease, DefaultHeartbeat
	case c.Lease == 0:
		c.Lease = DefaultShortLease
	case c.Lease > 0 && c.Heartbeat == 0:
		c.Heartbeat = c.Lease / 3
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	var errs []error
	bad := func(field string, value any, format string, args ...any) {
		errs = append(errs, configError(field, fmt.Sprint(value), fmt.Errorf(format, args...)))
	}
	if c.BatchSize < 1 || c.BatchSize > maxBatchSize {
		bad("BatchSize", c.BatchSize, "must be in 1..%d", maxBatchSize)
	}
	if c.MaxBatches < 1 {
		bad("MaxBatches", c.MaxBatches, "must be at least 1")
	}
	if c.WaitTime < 0 || c.WaitTime > maxWaitTime || c.WaitTime%time.Second != 0 {
		bad("WaitTime", c.WaitTime, "must be whole seconds in 0s..%s", maxWaitTime)
	}
	runTimeOK := c.MaxRunTime > 0 && c.MaxRunTime <= queue.MaxVisibility
	if !runTimeOK {
		bad("MaxRunTime", c.MaxRunTime, "must be in (0s, %s]", queue.MaxVisibility)
	}
	if c.VisibilityTimeout != 0 && runTimeOK {
		errs = append(errs, checkVisibility(c.VisibilityTimeout, c.MaxRunTime))
	}
	if c.GracePeriod < 0 {
		bad("GracePeriod", c.GracePeriod, "must not be negative")
	}
	if c.DeleteTimeout < 0 {
		bad("DeleteTimeout", c.DeleteTimeout, "must not be negative")
	}
	switch {
	case c.RetryMin < 0:
		bad("RetryMin", c.RetryMin, "must not be negative")
	case c.RetryMax < c.RetryMin:
		bad("RetryMax", c.RetryMax, "must be at least RetryMin %s", c.RetryMin)
	}
	if c.UnhealthyAfter < 1 {
		bad("UnhealthyAfter", c.UnhealthyAfter, "must be at least 1")
	}
	switch {
	case c.Lease < 0 && c.Heartbeat != 0:
		bad("Heartbeat", c.Heartbeat, "must be unset with a negative Lease (the short lease off): there is no short lease to renew")
	case c.Lease > 0 && (c.Heartbeat <= 0 || c.Heartbeat > c.Lease/2):
		bad("Heartbeat", c.Heartbeat, "must be positive and at most half of Lease %s: one slow or lost renewal would let the lease pass and another worker run the work", c.Lease)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "consumer", Field: field, Value: value, Err: err}
}

// checkVisibility checks a visibility timeout against the limits and the
// run time it must be extended through.
func checkVisibility(v, runTime time.Duration) error {
	switch {
	case v < minVisibility || v > queue.MaxVisibility || v%time.Second != 0:
		return configError("VisibilityTimeout", v.String(), fmt.Errorf("must be whole seconds in %s..%s", minVisibility, queue.MaxVisibility))
	case runTime+v > queue.MaxVisibility:
		return configError("VisibilityTimeout", v.String(), fmt.Errorf("plus MaxRunTime %s must be at most %s, the longest SQS keeps a received message hidden", runTime, queue.MaxVisibility))
	}
	return nil
}
