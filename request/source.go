package request

import (
	"fmt"
	"slices"
	"strings"
)

// source is a setting of an Identity, set or not, in a form two
// Identities that say the same thing share: the field that sets it
// ("" when none does) and its value, sets sorted.
type source struct {
	field, value string
}

// keySource is where id's key comes from, as set: the first key field
// set (Validate refuses more than one).
func (id Identity) keySource() source {
	switch {
	case id.KeyField != "":
		return source{"KeyField", fmt.Sprintf("%q", id.KeyField)}
	case len(id.KeyFields) > 0:
		return source{"KeyFields", setValue(id.KeyFields)}
	case id.KeyAttribute != "":
		return source{"KeyAttribute", fmt.Sprintf("%q", id.KeyAttribute)}
	case id.KeyFunc != nil:
		return source{"KeyFunc", "func"}
	}
	return source{}
}

// fingerprintSource is what id's fingerprint covers, as set.
func (id Identity) fingerprintSource() source {
	switch {
	case id.NoFingerprint:
		return source{"NoFingerprint", "true"}
	case len(id.FingerprintFields) > 0:
		return source{"FingerprintFields", setValue(id.FingerprintFields)}
	}
	return source{}
}

// setValue shows fields as a set: sorted, each once.
func setValue(fields []string) string {
	s := slices.Compact(slices.Sorted(slices.Values(fields)))
	return "[" + strings.Join(s, " ") + "]"
}

// Source says where id's key comes from, for logs and messages: "body
// field idempotency_key", "body fields a,b", "message attribute k" or "key
// func".
func (id Identity) Source() string {
	switch {
	case len(id.KeyFields) > 0:
		return "body fields " + strings.Join(id.KeyFields, ",")
	case id.KeyAttribute != "":
		return "message attribute " + id.KeyAttribute
	case id.KeyFunc != nil:
		return "key func"
	}
	return "body field " + id.Defaulted().KeyField
}

// Defaulted returns id with its key source filled in by the one rule
// every part follows: with no source set (KeyField, KeyFields,
// KeyAttribute, KeyFunc), the key is the body member DefaultKeyField.
func (id Identity) Defaulted() Identity {
	if id.keySource().field == "" {
		id.KeyField = DefaultKeyField
	}
	return id
}
