package consumer

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/idemq/idemq/queue"
)

// Defaults of Config's fields.
const (
	// DefaultMaxBatches is how many batches run at once: 4, so at most
	// 40 messages are in flight with queue.DefaultBatchSize.
	DefaultMaxBatches = 4
	// DefaultWaitTime is the long poll of each receive: 20 s, the most SQS
	// allows.
	DefaultWaitTime = 20 * time.Second
	// DefaultMaxRunTime is the deadline each batch's handler runs under,
	// like a Lambda function's timeout: 15 minutes, Lambda's longest.
	DefaultMaxRunTime = 15 * time.Minute
	// DefaultGracePeriod is how long Run lets running work finish once its
	// context ends (SIGTERM) before cancelling it: 20 s, inside the 30 s
	// ECS and Kubernetes wait between SIGTERM and SIGKILL.
	DefaultGracePeriod = 20 * time.Second
	// DefaultCancelWait is how long Run waits, after cancelling the work
	// left when the grace period ends, for it to release its claims and
	// for the deletes of the work that finished: 5 s.
	DefaultCancelWait = 5 * time.Second
	// DefaultRetryMin and DefaultRetryMax bound the capped exponential
	// back-off between attempts of a failed SQS call: 200 ms doubling up
	// to 20 s, each with up to half of it added at random.
	DefaultRetryMin = 200 * time.Millisecond
	DefaultRetryMax = 20 * time.Second
	// DefaultDeleteTimeout is how long the deletes of one batch are
	// retried before the messages they could not delete are left to come
	// back: 30 s.
	DefaultDeleteTimeout = 30 * time.Second
	// DefaultUnhealthyAfter is how many receives in a row must fail before
	// Healthy reports the consumer unhealthy: 3.
	DefaultUnhealthyAfter = 3
)

// Limits SQS places on the settings (its longest visibility timeout is
// queue.MaxVisibility).
const (
	MaxBatchSize = 10
	MaxWaitTime  = 20 * time.Second
	// MinVisibility is the shortest visibility timeout the consumer can
	// keep extending: it extends every half of it, in whole seconds.
	MinVisibility = 2 * time.Second
)

// Config is how a Consumer receives, runs, extends and deletes. Every
// setting is declared, defaulted and checked here, once (New applies the
// options over the zero Config); the zero value takes every default.
type Config struct {
	// BatchSize is how many messages one receive asks for (1 to 10).
	// Defaults to queue.DefaultBatchSize, the most SQS hands out at once.
	BatchSize int
	// MaxBatches is how many batches run at once; with BatchSize it bounds
	// the messages in flight. A receive is only made when a batch may
	// start. Defaults to DefaultMaxBatches.
	MaxBatches int
	// WaitTime is each receive's long poll (0 to 20 s, whole seconds).
	// Defaults to DefaultWaitTime.
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
	// Defaults to DefaultDeleteTimeout.
	DeleteTimeout time.Duration
	// RetryMin and RetryMax bound the back-off between attempts of a
	// failed receive, delete or visibility change. Default to
	// DefaultRetryMin and DefaultRetryMax.
	RetryMin, RetryMax time.Duration
	// QueueARN is the queue's ARN, put in each record's EventSourceARN
	// (and AWSRegion) as Lambda does; a FIFO queue's ends in ".fifo",
	// which is how the handler knows to keep group order. Defaults to the
	// queue's, read once by Start with GetQueueAttributes.
	QueueARN string
	// UnhealthyAfter is how many receives in a row must fail before
	// Healthy reports an error. Defaults to DefaultUnhealthyAfter.
	UnhealthyAfter int
	// Logger receives the consumer's logs. Defaults to slog.Default().
	Logger *slog.Logger
}

// Option changes a Config.
type Option func(*Config)

// WithBatchSize sets Config.BatchSize.
func WithBatchSize(n int) Option { return func(c *Config) { c.BatchSize = n } }

// WithMaxBatches sets Config.MaxBatches.
func WithMaxBatches(n int) Option { return func(c *Config) { c.MaxBatches = n } }

// WithWaitTime sets Config.WaitTime.
func WithWaitTime(d time.Duration) Option { return func(c *Config) { c.WaitTime = d } }

// WithVisibilityTimeout sets Config.VisibilityTimeout.
func WithVisibilityTimeout(d time.Duration) Option {
	return func(c *Config) { c.VisibilityTimeout = d }
}

// WithMaxRunTime sets Config.MaxRunTime.
func WithMaxRunTime(d time.Duration) Option { return func(c *Config) { c.MaxRunTime = d } }

// WithGracePeriod sets Config.GracePeriod.
func WithGracePeriod(d time.Duration) Option { return func(c *Config) { c.GracePeriod = d } }

// WithDeleteTimeout sets Config.DeleteTimeout.
func WithDeleteTimeout(d time.Duration) Option { return func(c *Config) { c.DeleteTimeout = d } }

// WithRetry sets Config.RetryMin and Config.RetryMax.
func WithRetry(min, max time.Duration) Option {
	return func(c *Config) { c.RetryMin, c.RetryMax = min, max }
}

// WithQueueARN sets Config.QueueARN.
func WithQueueARN(arn string) Option { return func(c *Config) { c.QueueARN = arn } }

// WithUnhealthyAfter sets Config.UnhealthyAfter.
func WithUnhealthyAfter(n int) Option { return func(c *Config) { c.UnhealthyAfter = n } }

// WithLogger sets Config.Logger.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// resolve fills in the defaults and panics, naming the setting, on one
// that cannot work. VisibilityTimeout may stay 0 (the queue's, checked
// when Start reads it).
func (c Config) resolve() Config {
	if c.BatchSize == 0 {
		c.BatchSize = queue.DefaultBatchSize
	}
	if c.MaxBatches == 0 {
		c.MaxBatches = DefaultMaxBatches
	}
	if c.WaitTime == 0 {
		c.WaitTime = DefaultWaitTime
	}
	if c.MaxRunTime == 0 {
		c.MaxRunTime = DefaultMaxRunTime
	}
	if c.GracePeriod == 0 {
		c.GracePeriod = DefaultGracePeriod
	}
	if c.DeleteTimeout == 0 {
		c.DeleteTimeout = DefaultDeleteTimeout
	}
	if c.RetryMin == 0 {
		c.RetryMin = DefaultRetryMin
	}
	if c.RetryMax == 0 {
		c.RetryMax = max(DefaultRetryMax, c.RetryMin)
	}
	if c.UnhealthyAfter == 0 {
		c.UnhealthyAfter = DefaultUnhealthyAfter
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	switch {
	case c.BatchSize < 1 || c.BatchSize > MaxBatchSize:
		panic(fmt.Sprintf("consumer: BatchSize %d is outside 1..%d", c.BatchSize, MaxBatchSize))
	case c.MaxBatches < 1:
		panic(fmt.Sprintf("consumer: MaxBatches %d is less than 1", c.MaxBatches))
	case c.WaitTime < 0 || c.WaitTime > MaxWaitTime || c.WaitTime%time.Second != 0:
		panic(fmt.Sprintf("consumer: WaitTime %s is not whole seconds in 0s..%s", c.WaitTime, MaxWaitTime))
	case c.VisibilityTimeout != 0:
		if err := checkVisibility(c.VisibilityTimeout, c.MaxRunTime); err != nil {
			panic(err.Error())
		}
	}
	switch {
	case c.MaxRunTime < 0 || c.MaxRunTime > queue.MaxVisibility:
		panic(fmt.Sprintf("consumer: MaxRunTime %s is outside (0s, %s]", c.MaxRunTime, queue.MaxVisibility))
	case c.GracePeriod < 0:
		panic(fmt.Sprintf("consumer: GracePeriod %s is negative", c.GracePeriod))
	case c.DeleteTimeout < 0:
		panic(fmt.Sprintf("consumer: DeleteTimeout %s is negative", c.DeleteTimeout))
	case c.RetryMin < 0 || c.RetryMax < c.RetryMin:
		panic(fmt.Sprintf("consumer: retry back-off %s..%s is not a range", c.RetryMin, c.RetryMax))
	case c.UnhealthyAfter < 1:
		panic(fmt.Sprintf("consumer: UnhealthyAfter %d is less than 1", c.UnhealthyAfter))
	}
	return c
}

// checkVisibility checks a visibility timeout against the limits and the
// run time it must be extended through.
func checkVisibility(v, runTime time.Duration) error {
	switch {
	case v < MinVisibility || v > queue.MaxVisibility || v%time.Second != 0:
		return fmt.Errorf("consumer: VisibilityTimeout %s is not whole seconds in %s..%s", v, MinVisibility, queue.MaxVisibility)
	case runTime+v > queue.MaxVisibility:
		return fmt.Errorf("consumer: MaxRunTime %s plus VisibilityTimeout %s is more than %s, the longest SQS keeps a received message hidden", runTime, v, queue.MaxVisibility)
	}
	return nil
}
