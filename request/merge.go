package request

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// Merge returns the Identity that says what id and other both say: each
// of the namespace, the key's source and the fingerprint taken from the
// one that sets it. It is how a request type's Identity (IdentityOf),
// which says the key and the fingerprint, joins the settings a part is
// given, which say the namespace and may add what the type leaves
// unset (a key attribute, fingerprint fields, no fingerprint). Where both
// set one, they must say the same (KeyFields and FingerprintFields in any
// order): else it is a contradiction, an *idem.ConfigError naming id's
// field. A KeyFunc is never the same as another, so two are refused.
// Merge does not Validate the result.
func (id Identity) Merge(other Identity) (Identity, error) {
	var errs []error
	out := id
	switch {
	case id.Namespace == "":
		out.Namespace = other.Namespace
	case other.Namespace != "" && other.Namespace != id.Namespace:
		errs = append(errs, configError("Namespace", fmt.Sprintf("%q", id.Namespace), fmt.Errorf("contradicts %q", other.Namespace)))
	}
	mine, theirs := id.keySource(), other.keySource()
	switch {
	case theirs.field == "":
	case mine.field == "":
		out.KeyField, out.KeyFields, out.KeyAttribute, out.KeyFunc = other.KeyField, slices.Clone(other.KeyFields), other.KeyAttribute, other.KeyFunc
	case mine.field == "KeyFunc" && theirs.field == "KeyFunc":
		errs = append(errs, configError("KeyFunc", "", errors.New("is set in both: two functions cannot be told to agree")))
	case mine != theirs:
		errs = append(errs, configError(mine.field, mine.value, fmt.Errorf("contradicts %s", other.Source())))
	}
	mineFP, theirsFP := id.fingerprintSource(), other.fingerprintSource()
	switch {
	case theirsFP.field == "":
	case mineFP.field == "":
		out.FingerprintFields, out.NoFingerprint = slices.Clone(other.FingerprintFields), other.NoFingerprint
	case mineFP != theirsFP:
		errs = append(errs, configError(mineFP.field, mineFP.value, fmt.Errorf("contradicts %s %s", theirsFP.field, theirsFP.value)))
	}
	if err := errors.Join(errs...); err != nil {
		return Identity{}, err
	}
	return out, nil
}

// reads is how a Reader of id reads a request: where its key comes from
// and what its fingerprint covers, with the defaults filled in. Two
// Identities that read every message alike have the same.
func (id Identity) reads() (key, fingerprint source) {
	key = id.Defaulted().keySource()
	fingerprint = id.fingerprintSource()
	switch {
	case fingerprint.field != "":
	case len(id.KeyFields) > 0:
		fingerprint = source{"NoFingerprint", "true"}
	default:
		fingerprint = source{"FingerprintFields", "(the whole body)"}
	}
	return key, fingerprint
}

// SameAs returns nil when id and other name every request alike: the
// same namespace, the same key source and the same fingerprint, the
// defaults filled in (no key source is KeyField DefaultKeyField; KeyFields
// without FingerprintFields check no fingerprint), KeyFields and
// FingerprintFields in any order. Two KeyFuncs are alike when they are
// one function, by its code: two closures of one function literal are
// alike whatever they hold, so a part that holds KeyFuncs alike still
// checks the keys they make. Else it returns an *idem.ConfigError naming
// each of id's fields that differs, joined. It is the one test of "the
// same request" every part makes: the front door of its queue's
// Identity, the typed producer of its request type's, the CDK constructs
// of what the function reads back from its environment.
func (id Identity) SameAs(other Identity) error {
	var errs []error
	if id.Namespace != other.Namespace {
		errs = append(errs, configError("Namespace", fmt.Sprintf("%q", id.Namespace), fmt.Errorf("is not %q", other.Namespace)))
	}
	myKey, myFP := id.reads()
	theirKey, theirFP := other.reads()
	if myKey.field == "KeyFunc" && theirKey.field == "KeyFunc" {
		myKey.value, theirKey.value = funcCode(id.KeyFunc), funcCode(other.KeyFunc)
	}
	if myKey != theirKey {
		errs = append(errs, configError(myKey.field, myKey.value, fmt.Errorf("reads the key otherwise than %s %s", theirKey.field, theirKey.value)))
	}
	if myFP != theirFP {
		errs = append(errs, configError(myFP.field, myFP.value, fmt.Errorf("fingerprints otherwise than %s %s", theirFP.field, theirFP.value)))
	}
	return errors.Join(errs...)
}

// funcCode names a KeyFunc by its code.
func funcCode(f keyFunc) string {
	return fmt.Sprintf("func@%#x", reflect.ValueOf(f).Pointer())
}
