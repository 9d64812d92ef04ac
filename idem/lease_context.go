package idem

import (
	"context"
	"fmt"
	"time"
)

// runnerLease is the lease a runner of Do's callers puts in their
// context (ContextWithDefaultLease).
type runnerLease struct{ lease, heartbeat time.Duration }

type runnerLeaseKey struct{}

// ContextWithDefaultLease returns ctx carrying a default lease and the
// heartbeat that renews it, for Do under ctx when Config.Lease is unset:
// its claims then take lease, extended every heartbeat (or every
// Config.Heartbeat, when set) while the work runs, instead of a lease
// made from ctx's deadline. It is for a runner whose deadline is far, so
// that a claim left by its crash blocks its key for about lease rather
// than until the deadline: package consumer puts it in every batch's
// context. A Config.Lease set by the caller wins. It panics unless lease
// is positive and heartbeat in (0, lease/2], as Config.Validate requires
// of Lease and Heartbeat: one lost extension must not lose the key.
func ContextWithDefaultLease(ctx context.Context, lease, heartbeat time.Duration) context.Context {
	if lease <= 0 || heartbeat <= 0 || heartbeat > lease/2 {
		panic(fmt.Sprintf("idem: ContextWithDefaultLease: lease %s, heartbeat %s: want a positive lease and a heartbeat of at most half of it", lease, heartbeat))
	}
	return context.WithValue(ctx, runnerLeaseKey{}, runnerLease{lease, heartbeat})
}

// leaseOf returns the lease and the heartbeat interval of a claim made at
// now under ctx: Config.Lease and Config.Heartbeat when Lease is set;
// else the default lease ctx carries (ContextWithDefaultLease) and its
// heartbeat, or Config.Heartbeat when set; else the time left before
// ctx's deadline plus LeaseMargin, or DefaultLease without a deadline,
// with Config.Heartbeat. The interval is at most half the lease (beatFor);
// 0 is none.
func (c *Config) leaseOf(ctx context.Context, now time.Time) (lease, beat time.Duration) {
	if rl, ok := ctx.Value(runnerLeaseKey{}).(runnerLease); ok && c.Lease == 0 {
		beat = rl.heartbeat
		if c.Heartbeat > 0 {
			beat = min(c.Heartbeat, rl.lease/2)
		}
		return rl.lease, beat
	}
	deadline, hasDeadline := ctx.Deadline()
	lease = c.leaseFor(deadline, hasDeadline, now)
	return lease, c.beatFor(lease)
}
