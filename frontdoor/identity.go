package frontdoor

import "github.com/idemq/idemq/request"

// putsKey reports whether the front door puts the Idempotency-Key where
// id reads the worker's key (a body member or a message attribute), so
// that the worker's key is the caller's; with KeyFields or a KeyFunc the
// message makes it.
func putsKey(id request.Identity) bool {
	return len(id.KeyFields) == 0 && id.KeyFunc == nil
}
