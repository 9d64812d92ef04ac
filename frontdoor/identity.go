package frontdoor

import (
	"reflect"
	"slices"

	"github.com/idemq/idemq/request"
)

// sameIdentity reports whether a and b name every request alike: the same
// namespace, key source (an unset source and KeyField DefaultKeyField are
// one), fingerprint fields and check. Two KeyFuncs are the same when they
// are one function (their code); a queue whose KeyFunc reads otherwise is
// caught when its send reports another record key (submit).
func sameIdentity(a, b request.Identity) bool {
	return a.Namespace == b.Namespace &&
		keyField(a) == keyField(b) &&
		slices.Equal(a.KeyFields, b.KeyFields) &&
		a.KeyAttribute == b.KeyAttribute &&
		funcCode(a.KeyFunc) == funcCode(b.KeyFunc) &&
		slices.Equal(a.FingerprintFields, b.FingerprintFields) &&
		a.NoFingerprint == b.NoFingerprint
}

// keyField is the body member id reads its key from: "" for a key of
// another source.
func keyField(id request.Identity) string {
	switch {
	case id.KeyField != "":
		return id.KeyField
	case len(id.KeyFields) > 0 || id.KeyAttribute != "" || id.KeyFunc != nil:
		return ""
	}
	return request.DefaultKeyField
}

// funcCode identifies a KeyFunc by its code; 0 for none.
func funcCode(f request.KeyFunc) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}

// putsKey reports whether the front door puts the Idempotency-Key where
// id reads the worker's key (a body member or a message attribute), so
// that the worker's key is the caller's; with KeyFields or a KeyFunc the
// message makes it.
func putsKey(id request.Identity) bool {
	return len(id.KeyFields) == 0 && id.KeyFunc == nil
}
