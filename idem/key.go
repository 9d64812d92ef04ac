package idem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Key identifies one request across every delivery of it. It is made by one
// of the helpers below and always starts with a namespace (say, the function
// name) so two functions sharing a table never collide.
type Key string

// errNoNamespace is returned by the key helpers for an empty namespace: a
// key without one could collide with another function's.
var errNoNamespace = fmt.Errorf("%w: the namespace is empty", ErrNoKey)

// MaxKeyBytes is the longest key kept as it is; a longer one is replaced by
// its namespace and a SHA-256 of the whole key, well within DynamoDB's
// 2048-byte partition key limit.
const MaxKeyBytes = 1024

// ClientKey makes a key from a key the caller supplies (an
// "Idempotency-Key" the producer chose). An empty key or namespace is
// ErrNoKey.
func ClientKey(namespace, key string) (Key, error) {
	if namespace == "" {
		return "", errNoNamespace
	}
	if key == "" {
		return "", fmt.Errorf("%w: the key is empty", ErrNoKey)
	}
	return join(namespace, key), nil
}

// NaturalKey makes a key from the parts that name the request in the
// business's own terms, for example ("summarise", "doc", "4471", "v9").
// Parts are escaped, so ("a:b") and ("a", "b") are different keys. No parts,
// or an empty part, is ErrNoKey.
func NaturalKey(namespace string, parts ...string) (Key, error) {
	if namespace == "" {
		return "", errNoNamespace
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("%w: no key parts", ErrNoKey)
	}
	esc := make([]string, len(parts))
	for i, p := range parts {
		if p == "" {
			return "", fmt.Errorf("%w: key part %d is empty", ErrNoKey, i)
		}
		esc[i] = escape(p)
	}
	return join(namespace, strings.Join(esc, ":")), nil
}

// JSONKey makes a key from the named fields of a JSON object: the fields'
// values are put into one object, written in canonical form (RFC 8785 with
// numbers kept exact, see JSONObject.Hash: member order, white space and
// the spelling of a number or a string do not matter; two different values
// always make two keys) and hashed with SHA-256. The key names the fields
// it covers, sorted, so their order in the call does not matter:
//
//	ns#json(model,prompt):sha256:…
//
// A field is a member name, or a dotted path into nested objects
// ("document.id"; see CheckField). A field that is absent or null is
// ErrNoKey: an absent value never stands for all requests that lack it. So
// is a hashed string that is not Unicode text (a lone surrogate escape).
func JSONKey(namespace string, body []byte, fields ...string) (Key, error) {
	if namespace == "" {
		return "", errNoNamespace
	}
	if len(fields) == 0 {
		return "", fmt.Errorf("%w: no key fields named", ErrNoKey)
	}
	obj, err := ParseJSONObject(body)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoKey, err)
	}
	return obj.Key(namespace, fields...)
}

// Fingerprint identifies a payload by its bytes, for payload validation.
func Fingerprint(payload []byte) string {
	h := sha256.Sum256(payload)
	return "sha256:" + hex.EncodeToString(h[:])
}

// JSONFingerprint identifies a JSON payload by its canonical form, so
// re-encoding it does not change it: RFC 8785's, with numbers kept exact
// (see JSONObject.Hash), the same as RFC 8785's for every body whose
// numbers a float64 holds. With fields, only those fields are covered (as
// in JSONKey); without, the whole document, which must be I-JSON: a member
// name twice in one object or a string that is not Unicode text is an
// error.
func JSONFingerprint(body []byte, fields ...string) (string, error) {
	if len(fields) == 0 {
		canon, err := canonicalJSON(body)
		if err != nil {
			return "", fmt.Errorf("idem: payload has no canonical form: %w", err)
		}
		return Fingerprint(canon), nil
	}
	obj, err := ParseJSONObject(body)
	if err != nil {
		return "", err
	}
	return obj.Hash(fields...)
}

// join puts the namespace before the value, hashing the whole key when it
// is too long to store.
func join(namespace, value string) Key {
	k := escape(namespace) + "#" + value
	if len(k) <= MaxKeyBytes {
		return Key(k)
	}
	ns := escape(namespace)
	if len(ns) > MaxKeyBytes/2 {
		ns = strings.ToValidUTF8(ns[:MaxKeyBytes/2], "")
	}
	return Key(ns + "#" + Fingerprint([]byte(k)))
}

var escaper = strings.NewReplacer("%", "%25", ":", "%3A", "#", "%23")

func escape(s string) string { return escaper.Replace(s) }
