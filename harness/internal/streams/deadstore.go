package streams

import (
	"context"
	"errors"

	"github.com/idemq/idemq/idem"
)

// deadStore is the records' store as a dead invocation sees it: nothing
// it sends after it died arrives (not even what it sends with a context
// no longer cancelled, as a release after a failure is), so its claims
// stay in progress until their leases end, as a killed process's do.
type deadStore struct{ idem.Store }

var errDead = errors.New("streams: the invocation died: its request never reached the store")

func (s deadStore) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if dead(ctx) {
		return idem.Claim{}, errDead
	}
	return s.Store.Claim(ctx, req)
}

func (s deadStore) Complete(ctx context.Context, c idem.Completion) error {
	if dead(ctx) {
		return errDead
	}
	return s.Store.Complete(ctx, c)
}

func (s deadStore) Release(ctx context.Context, key idem.Key, owner string) error {
	if dead(ctx) {
		return errDead
	}
	return s.Store.Release(ctx, key, owner)
}

func (s deadStore) Extend(ctx context.Context, e idem.Extension) error {
	if dead(ctx) {
		return errDead
	}
	return s.Store.Extend(ctx, e)
}
