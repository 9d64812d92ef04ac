package handler

import (
	"context"

	"github.com/idemq/idemq/idem"
)

// keyContextKey carries a record's key in the contexts the handler gives
// the function and the replay hook.
type keyContextKey struct{}

// KeyFromContext returns the idempotency key (its namespace included) of
// the record whose function or replay hook runs under ctx, and true; ""
// and false outside one, and for a record run without a key
// (WithKeyless).
//
// Use it to make the keys of nested idem.Do steps, so that a step already
// done is not done again when a later step fails and the message comes
// back: for example, pay for the model once even if the email after it
// fails. Give each step a namespace of its own, so no step's key can be
// another request's:
//
//	key, _ := handler.KeyFromContext(ctx)
//	step, _ := idem.ClientKey("summarise.model", string(key))
//	r, err := idem.Do(ctx, store, step, "", callTheModel)
func KeyFromContext(ctx context.Context) (idem.Key, bool) {
	k, ok := ctx.Value(keyContextKey{}).(idem.Key)
	return k, ok && k != ""
}

// withKey returns ctx carrying key for KeyFromContext.
func withKey(ctx context.Context, key idem.Key) context.Context {
	return context.WithValue(ctx, keyContextKey{}, key)
}
