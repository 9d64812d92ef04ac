package idem

import (
	"context"
	"time"

	"github.com/idemq/idemq/internal/leasectx"
)

// leaseOf returns the lease and the heartbeat interval of a claim made at
// now under ctx: Config.Lease and Config.Heartbeat when Lease is set;
// else the default lease ctx carries (leasectx.WithDefaultLease) and its
// heartbeat, or Config.Heartbeat when set; else the time left before
// ctx's deadline plus LeaseMargin, or DefaultLease without a deadline,
// with Config.Heartbeat. The interval is at most half the lease (beatFor);
// 0 is none.
func (c *Config) leaseOf(ctx context.Context, now time.Time) (lease, beat time.Duration) {
	if rl, ok := leasectx.DefaultLease(ctx); ok && c.Lease == 0 {
		beat = rl.Heartbeat
		if c.Heartbeat > 0 {
			beat = min(c.Heartbeat, rl.Lease/2)
		}
		return rl.Lease, beat
	}
	deadline, hasDeadline := ctx.Deadline()
	lease = c.leaseFor(deadline, hasDeadline, now)
	return lease, c.beatFor(lease)
}
