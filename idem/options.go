package idem

import "time"

// Defaults used when an option is not given.
const (
	// DefaultLease is the lease when the context has no deadline.
	DefaultLease = 15 * time.Minute
	// DefaultLeaseMargin is added to the time left before the context's
	// deadline to make the lease.
	DefaultLeaseMargin = 10 * time.Second
	// DefaultExpiry is how long a record lives when WithExpiry is not
	// given: 15 days, longer than SQS's longest retention (14 days). Size it
	// for your queue with RecordLifetime.
	DefaultExpiry = 15 * 24 * time.Hour
)

// Option configures Do.
type Option func(*options)

type options struct {
	clock       Clock
	lease       time.Duration
	leaseMargin time.Duration
	expiry      time.Duration
	heartbeat   time.Duration
}

func newOptions(opts []Option) options {
	o := options{clock: SystemClock, leaseMargin: DefaultLeaseMargin, expiry: DefaultExpiry}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithClock sets the clock leases and expiry are computed from. Defaults to
// SystemClock.
func WithClock(c Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithLease sets how long a claim holds the key before another worker may
// take it over. It must cover the work, or a second worker may run it too.
// Defaults to the time left before the context's deadline (in Lambda, the
// invocation's) plus the lease margin, or DefaultLease without a deadline.
func WithLease(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.lease = d
		}
	}
}

// WithLeaseMargin sets what is added to the context's remaining time to make
// the default lease. Defaults to DefaultLeaseMargin.
func WithLeaseMargin(d time.Duration) Option {
	return func(o *options) {
		if d >= 0 {
			o.leaseMargin = d
		}
	}
}

// WithExpiry sets how long a record lives, counted from the claim and again
// from completion. Defaults to DefaultExpiry.
func WithExpiry(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.expiry = d
		}
	}
}

// WithHeartbeat extends the lease every interval while the work runs, so
// work longer than the lease keeps the key. If an extension finds the lease
// lost, the work's context is cancelled with cause ErrLeaseLost. Defaults to
// off.
func WithHeartbeat(interval time.Duration) Option {
	return func(o *options) {
		if interval > 0 {
			o.heartbeat = interval
		}
	}
}

// leaseFor is the lease length for a claim made at now.
func (o *options) leaseFor(deadline time.Time, hasDeadline bool, now time.Time) time.Duration {
	if o.lease > 0 {
		return o.lease
	}
	if hasDeadline {
		return max(deadline.Sub(now), 0) + o.leaseMargin
	}
	return DefaultLease
}
