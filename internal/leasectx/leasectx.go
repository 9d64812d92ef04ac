// Package leasectx carries, in a context, what a runner of idem.Do's
// callers tells Do about its time: the default lease of its claims (package
// consumer's short lease, renewed by a heartbeat) and the deadline its
// claims are settled by (package handler's, inside its deadline reserve).
// idem.Do reads both; no user names them. It imports no package of the
// repository.
package leasectx

import (
	"context"
	"fmt"
	"time"
)

// Lease is the default lease a runner puts in its context, and the
// heartbeat that renews it.
type Lease struct{ Lease, Heartbeat time.Duration }

type leaseKey struct{}

// WithDefaultLease returns ctx carrying a default lease and the heartbeat
// that renews it, for idem.Do under ctx when idem.Config.Lease is unset:
// its claims then take lease, extended every heartbeat (or every
// idem.Config.Heartbeat, when set) while the work runs, instead of a
// lease made from ctx's deadline. It is for a runner whose deadline is
// far, so that a claim left by its crash blocks its key for about lease
// rather than until the deadline: package consumer puts it in every
// batch's context. A Config.Lease set by the caller wins. It panics
// unless lease is positive and heartbeat in (0, lease/2], as
// idem.Config.Validate requires of Lease and Heartbeat: one lost
// extension must not lose the key.
func WithDefaultLease(ctx context.Context, lease, heartbeat time.Duration) context.Context {
	if lease <= 0 || heartbeat <= 0 || heartbeat > lease/2 {
		panic(fmt.Sprintf("leasectx: WithDefaultLease: lease %s, heartbeat %s: want a positive lease and a heartbeat of at most half of it", lease, heartbeat))
	}
	return context.WithValue(ctx, leaseKey{}, Lease{lease, heartbeat})
}

// DefaultLease returns the default lease ctx carries (WithDefaultLease).
func DefaultLease(ctx context.Context) (Lease, bool) {
	l, ok := ctx.Value(leaseKey{}).(Lease)
	return l, ok
}

type settleKey struct{}

// WithSettleDeadline returns a copy of ctx under which idem.Do sends the
// completion or release after the work until t, even after ctx has ended
// (by its deadline or a cancellation). Without it, Do settles until ctx's
// deadline, or for 30 seconds after the work when ctx has none. The SQS
// handler sets it to a point inside handler.Config.DeadlineReserve, so a
// claim is settled before the invocation ends.
func WithSettleDeadline(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, settleKey{}, t)
}

// SettleDeadline returns the settle deadline ctx carries
// (WithSettleDeadline).
func SettleDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(settleKey{}).(time.Time)
	return t, ok
}
