package idemjson

import (
	"fmt"

	"github.com/idemq/idemq/idem"
)

// Key makes a key from the named fields of a JSON object: the fields'
// values are put into one object, written in canonical form (RFC 8785 with
// numbers kept exact, see Object.Hash: member order, white space and the
// spelling of a number or a string do not matter; two different values
// always make two keys) and hashed with SHA-256. The key names the fields
// it covers, sorted, so their order in the call does not matter:
//
//	ns#json(model,prompt):sha256:…
//
// A field is a member name, or a dotted path into nested objects
// ("document.id"; see CheckField). A field that is absent or null is
// idem.ErrNoKey: an absent value never stands for all requests that lack
// it. So is a hashed string that is not Unicode text (a lone surrogate
// escape).
func Key(namespace string, body []byte, fields ...string) (idem.Key, error) {
	if namespace == "" {
		return "", errNoNamespace
	}
	if len(fields) == 0 {
		return "", fmt.Errorf("%w: no key fields named", idem.ErrNoKey)
	}
	obj, err := Parse(body)
	if err != nil {
		return "", fmt.Errorf("%w: %w", idem.ErrNoKey, err)
	}
	return obj.Key(namespace, fields...)
}

// Fingerprint identifies a JSON payload by its canonical form, so
// re-encoding it does not change it: RFC 8785's, with numbers kept exact
// (see Object.Hash), the same as RFC 8785's for every body whose numbers a
// float64 holds. With fields, only those fields are covered (as in Key);
// without, the whole document, which must be I-JSON: a member name twice
// in one object or a string that is not Unicode text is an error. It has
// the form of idem.Fingerprint.
func Fingerprint(body []byte, fields ...string) (string, error) {
	if len(fields) == 0 {
		canon, err := canonicalJSON(body)
		if err != nil {
			return "", fmt.Errorf("idemjson: payload has no canonical form: %w", err)
		}
		return idem.Fingerprint(canon), nil
	}
	obj, err := Parse(body)
	if err != nil {
		return "", err
	}
	return obj.Hash(fields...)
}
