package handlertest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Hold makes store hold key as another worker's claim, IN_PROGRESS with
// a lease that ends at leaseUntil, and returns that worker's owner token:
//
//   - leaseUntil ahead of the handler's clock: a worker is still on it.
//     The handler does not run the key's message, and reports it as a
//     batch item failure (with handler.WithBackoff, given back until the
//     lease ends). Complete the key with the owner token (store.Complete)
//     to play that worker finishing: the next delivery replays its
//     result.
//   - leaseUntil behind the handler's clock by more than its clock-skew
//     bound (idem.Config.ClockSkew, 500 ms by default): a worker that
//     crashed. The next delivery takes the key over and runs.
//
// The handler's clock is the wall clock unless idem.Config.Clock says
// otherwise; give Hold a time of that clock. It claims through
// store.Claim, as any worker does, so it works with every idem.Store;
// the record expires idem.DefaultExpiry after leaseUntil. key is the
// record's key, as the handler makes it: idem.ClientKey(namespace,
// value), or, for a message keyed otherwise, the Key of what
// request.NewReader(identity) reads from it. A key whose record a claim
// at leaseUntil cannot take over (a completed one, a live lease) is an
// error.
func Hold(ctx context.Context, store idem.Store, key idem.Key, leaseUntil time.Time) (owner string, err error) {
	if store == nil || leaseUntil.IsZero() {
		return "", errors.New("handlertest: Hold needs a store and a lease's end")
	}
	owner = storekit.NewOwner()
	c, err := store.Claim(ctx, idem.ClaimRequest{
		Key: key, Owner: owner, Now: leaseUntil,
		LeaseUntil: leaseUntil, ExpiresAt: leaseUntil.Add(idem.DefaultExpiry),
	})
	switch {
	case err != nil:
		return "", fmt.Errorf("handlertest: hold %q: %w", key, err)
	case !c.Claimed:
		return "", fmt.Errorf("handlertest: hold %q: the store keeps a record of it that is %s", key, c)
	}
	return owner, nil
}
