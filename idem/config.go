package idem

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/internal/optkit"
)

// Defaults of Config's fields.
const (
	// DefaultLease is the lease when the context has no deadline.
	DefaultLease = 15 * time.Minute
	// DefaultLeaseMargin is added to the time left before the context's
	// deadline to make the lease.
	DefaultLeaseMargin = 10 * time.Second
	// DefaultClockSkew is the bound on every worker's clock error that
	// leases are safe within unless told otherwise: 500 ms, CockroachDB's
	// default maximum clock offset. NTP-synchronised hosts (Amazon Time
	// Sync on Lambda and EC2) keep well within a millisecond of it.
	DefaultClockSkew = 500 * time.Millisecond
	// DefaultExpiry is how long a record lives: 40 days, enough for SQS's
	// longest retention (14 days) with a dead-letter queue as long, from
	// which a message is redriven once as late as it can be
	// (queue.RecordLifetime gives 35 days for that queue at 5 receives
	// of 12 minutes). Size it for your queue with queue.RecordLifetime.
	DefaultExpiry = 40 * 24 * time.Hour
	// defaultSettleTimeout is how long Do may take to settle a claim after
	// the work returns when its context has no deadline and its runner set
	// no settle deadline (leasectx.WithSettleDeadline).
	defaultSettleTimeout = 30 * time.Second
	// DefaultCompressAbove is the size above which a result is stored
	// compressed: 512 bytes. Prose gzips 1.9× at 768 bytes and 2.0× at
	// 1 KiB; with the SQS handler's keys a raw result over about 900
	// bytes makes a DynamoDB item over 1 KB, two write units, where its
	// gzip takes one, and longer keys move that edge down towards 800
	// (docs/benchmarks.md, "What a result costs by size").
	DefaultCompressAbove = 512
	// defaultMaxDecodedBytes is the most a compressed result may expand
	// to: 16 MiB, well above what a store keeps (400 KB to 512 KiB) times
	// what prose compresses by, well below a Lambda function's memory.
	defaultMaxDecodedBytes = 16 << 20
	// DefaultOffloadAbove is the stored size (after compression) above
	// which a result goes to Config.Blobs: 6,000 bytes, where a blob
	// starts to cost less with DefaultExpiry and one record in ten
	// delivered twice, at us-east-1 prices. Inline, a completion of S
	// stored bytes (plus 130 to 250 bytes of key and attributes) costs
	// one DynamoDB write unit per KB started, at $0.625 per million, each
	// duplicate's failed claim as much again (it is billed by the item it
	// hits), and keeping a KB for DefaultExpiry $0.34 per million;
	// offloaded, one write unit for the pointer and an S3 PUT at $5 per
	// million (8 units' price), a unit and a $0.40-per-million GET per
	// duplicate, $0.03 per million per KB kept. The item that passes 6 KB
	// (7 units) costs more than the blob: from 6,011 stored bytes with
	// 134 bytes besides, 5,895 with 250. A shorter expiry or fewer
	// duplicates move the break-even up, to 8,059 with a day's expiry
	// (docs/stores.md has the table): set Config.OffloadAbove to it.
	DefaultOffloadAbove = 6000
)

// Config is how Do claims, extends and completes a key. Every setting is
// declared, defaulted and checked here, once; the SQS handler passes it on
// as it is (handler.WithIdem). The zero value is valid and takes every
// default: a zero field is its default, and a negative one is refused,
// except where a field says a negative value turns it off
// (docs/options.md).
type Config struct {
	// Clock tells the time leases and expiry are computed from. Defaults
	// to the wall clock (time.Now).
	Clock Clock
	// Lease is how long a claim holds the key before another worker may
	// take it over. It must cover the work, or a second worker may run it
	// too (see Heartbeat). Defaults to the lease the context carries
	// (package consumer's, a short lease renewed by a heartbeat), else the time left before the context's deadline
	// (in Lambda, the invocation's) plus LeaseMargin, or DefaultLease when
	// the context has no deadline.
	Lease time.Duration
	// LeaseMargin is added to the context's remaining time to make the
	// default lease. Defaults to DefaultLeaseMargin.
	LeaseMargin time.Duration
	// ClockSkew is how far any worker's clock may be from the true time:
	// the bound within which a live lease is never taken over
	// (docs/protocol.md, "Clocks"). Every time a claim or an extension
	// writes is padded by it (the lease ends at now + lease + ClockSkew,
	// the record expires at now + expiry + ClockSkew), and a claim is
	// judged at now - ClockSkew, so a lease or a record counts as passed
	// only when it has passed on every clock within the bound. With every
	// worker's clock within ClockSkew of the truth, a claim never takes
	// over a lease its holder still counts on, nor a record before it has
	// lived its expiry: a key taken over after a crash waits about twice
	// ClockSkew more. Defaults to DefaultClockSkew.
	ClockSkew time.Duration
	// Expiry is how long a record lives, counted from the claim, from each
	// heartbeat and again from the completion; never less than the lease,
	// so a live lease never outlasts its record. Setting it below Lease is
	// refused. Defaults to DefaultExpiry.
	Expiry time.Duration
	// Heartbeat extends the lease by a whole lease every interval while the
	// work runs, and then while its result is put in Blobs, so work (or an
	// upload) longer than the lease keeps the key; an extension
	// that finds the lease lost cancels the work's context with cause
	// ErrLeaseLost. It must be at most half of Lease, so one lost
	// extension does not lose the key; with a lease made from the
	// context's deadline, the beat is made at most half that lease.
	// Defaults to 0: off, unless the lease is the context's (package
	// consumer's), which brings its own heartbeat.
	Heartbeat time.Duration
	// CompressAbove is the size in bytes above which the work's result is
	// stored gzip-compressed (Encoding "gzip"), when that makes it at least
	// 32 bytes smaller, and decompressed when it is replayed: the work,
	// Result.Value and the SQS handler's replay hook only ever see the
	// result as the work returned it. A store's size limit
	// (ErrResultTooLarge) applies to the stored bytes. A negative value
	// turns compression off: turn it off when other
	// code (Powertools) must read the records. Defaults to
	// DefaultCompressAbove.
	CompressAbove int
	// MaxDecodedBytes is the most a compressed stored result may expand to
	// when it is replayed; one that expands further (a corrupt or hostile
	// record) fails the replay with ErrUnreadableResult. A result larger
	// than this is never compressed, so a record Do writes can always be
	// replayed under the same Config. Defaults to 16 MiB.
	MaxDecodedBytes int
	// DiscardResult completes a key without its result: for work that
	// keeps its answer itself (with staged writes, say) and whose
	// duplicates need none. The completion stays one small write whatever
	// the result's size, and a duplicate is Replayed with an empty Value
	// (the SQS handler hands its replay hook an empty result). Result.Value
	// of the call that ran the work is still the fresh result. Defaults to
	// false: the result is stored.
	DiscardResult bool
	// Blobs is where results above OffloadAbove are kept: Do puts the
	// stored bytes there under a name unique to the execution, then
	// completes the record with a pointer (Encoding "blob": name, size,
	// SHA-256); a replay reads the object and checks it, and fails with
	// ErrUnreadableResult when it is missing or does not match. A put
	// that fails is a completion that failed (NotStored). Any store can
	// use it. Records written with it can only be replayed by a Config
	// with the same blob store. Defaults to nil: every result is kept in
	// the record.
	Blobs Blobs
	// OffloadAbove is the stored size in bytes (after compression) above
	// which a result goes to Blobs; results that fit stay in the record.
	// It has no effect without Blobs. Defaults to DefaultOffloadAbove.
	OffloadAbove int
}

// Option changes a Config. The options only set fields: a value that
// cannot be safe is stored as it is, and NewConfig (or the constructor
// that takes the options) refuses it. The common settings have an option
// here; a rare one is a Config field, set with WithConfig or an option of
// one's own: Option(func(c *Config) { c.CompressAbove = -1 }).
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields.
// Defaults to the zero Config, every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithLease sets Config.Lease, how long a claim holds the key. Defaults
// to the context's lease, else the time left before its deadline plus
// Config.LeaseMargin, else DefaultLease.
func WithLease(d time.Duration) Option { return func(c *Config) { c.Lease = d } }

// WithExpiry sets Config.Expiry, how long a record lives. Defaults to
// DefaultExpiry.
func WithExpiry(d time.Duration) Option { return func(c *Config) { c.Expiry = d } }

// WithHeartbeat sets Config.Heartbeat, how often the lease is extended
// while the work runs. Defaults to off, unless the context's lease brings
// its own heartbeat.
func WithHeartbeat(interval time.Duration) Option {
	return func(c *Config) { c.Heartbeat = interval }
}

// WithBlobs sets Config.Blobs: results above Config.OffloadAbove are kept
// in b. Defaults to none: every result is kept in its record.
func WithBlobs(b Blobs) Option { return func(c *Config) { c.Blobs = b } }

// NewConfig applies opts to the zero Config and returns it with its
// defaults filled in, or an error that joins a *ConfigError for every
// setting that cannot be safe and every nil option: settings are fixed
// when a program is wired, so a bad one is found at start, before the
// first request.
func NewConfig(opts ...Option) (Config, error) {
	c, optErr := optkit.ApplyOptions("idem", opts)
	c, err := c.resolve()
	if err = errors.Join(optErr, err); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate reports every setting of c that cannot be safe, each a
// *ConfigError naming its field (joined), or nil. Zero
// fields take their defaults and are valid. It is the resolve step that
// Do, NewConfig and the SQS handler's New run, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and returns a *ConfigError for each
// setting that cannot be safe, joined. It is the one place defaults are
// written and values checked.
func (c Config) resolve() (Config, error) {
	if c.Clock == nil {
		c.Clock = systemClock
	}
	if c.LeaseMargin == 0 {
		c.LeaseMargin = DefaultLeaseMargin
	}
	if c.Expiry == 0 {
		c.Expiry = DefaultExpiry
	}
	if c.ClockSkew == 0 {
		c.ClockSkew = DefaultClockSkew
	}
	if c.CompressAbove == 0 {
		c.CompressAbove = DefaultCompressAbove
	}
	if c.MaxDecodedBytes == 0 {
		c.MaxDecodedBytes = defaultMaxDecodedBytes
	}
	if c.OffloadAbove == 0 {
		c.OffloadAbove = DefaultOffloadAbove
	}
	var errs []error
	bad := func(field string, value any, reason string) {
		errs = append(errs, &ConfigError{Package: "idem", Field: field, Value: fmt.Sprint(value), Err: errors.New(reason)})
	}
	for _, f := range []struct {
		field string
		value time.Duration
	}{{"Lease", c.Lease}, {"LeaseMargin", c.LeaseMargin}, {"ClockSkew", c.ClockSkew}, {"Expiry", c.Expiry}, {"Heartbeat", c.Heartbeat}} {
		if f.value < 0 {
			bad(f.field, f.value, "must not be negative")
		}
	}
	if c.MaxDecodedBytes < 0 {
		bad("MaxDecodedBytes", c.MaxDecodedBytes, "must not be negative")
	}
	if c.OffloadAbove < 0 {
		bad("OffloadAbove", c.OffloadAbove, "must not be negative")
	}
	if c.Lease > 0 && c.Expiry > 0 && c.Expiry < c.Lease {
		bad("Expiry", c.Expiry, fmt.Sprintf("must be at least Lease %s: the record could expire, and another worker claim the key, while the work still runs", c.Lease))
	}
	if c.Heartbeat > 0 && c.Lease > 0 && c.Heartbeat > c.Lease/2 {
		bad("Heartbeat", c.Heartbeat, fmt.Sprintf("must be at most half of Lease %s: one slow or lost extension would let the lease pass and another worker run the work", c.Lease))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// leaseFor is the lease of a claim made at now under a context with the
// given deadline.
func (c *Config) leaseFor(deadline time.Time, hasDeadline bool, now time.Time) time.Duration {
	switch {
	case c.Lease > 0:
		return c.Lease
	case hasDeadline:
		return max(deadline.Sub(now), 0) + c.LeaseMargin
	}
	return DefaultLease
}

// claimExpiry is the expiry of a claim, or of an extension, made at now
// with the given lease: Expiry, and never before the lease ends, padded
// by the clock-skew bound.
func (c *Config) claimExpiry(now time.Time, lease time.Duration) time.Time {
	return now.Add(max(c.Expiry, lease) + c.skew())
}

// beatFor is the heartbeat interval for a lease: Heartbeat, at most half
// the lease. 0: off.
func (c *Config) beatFor(lease time.Duration) time.Duration {
	if c.Heartbeat == 0 {
		return 0
	}
	return min(c.Heartbeat, lease/2)
}

// skew is ClockSkew, its default when zero (a negative one, which
// Validate refuses, counts as none).
func (c *Config) skew() time.Duration {
	if c.ClockSkew == 0 {
		return DefaultClockSkew
	}
	return max(c.ClockSkew, 0)
}
