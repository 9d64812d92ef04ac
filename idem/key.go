package idem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Key identifies one request across every delivery of it. It is made by one
// of the helpers below (or idemjson.Key, from a JSON body's fields) and
// always starts with a namespace (say, the function name) so two functions
// sharing a table never collide.
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
	v, err := NaturalValue(parts...)
	if err != nil {
		return "", err
	}
	return join(namespace, v), nil
}

// NaturalValue is NaturalKey without its namespace: the parts escaped and
// joined, what a handler.KeyFunc returns for a natural key (the handler
// puts its namespace before it). No parts, or an empty part, is ErrNoKey.
func NaturalValue(parts ...string) (string, error) {
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
	return strings.Join(esc, ":"), nil
}

// Fingerprint identifies a payload by its bytes, for payload validation:
// "sha256:" and the SHA-256 of payload in lowercase hex. idemjson's
// fingerprints, of a JSON payload's canonical form, have the same form.
func Fingerprint(payload []byte) string {
	h := sha256.Sum256(payload)
	return "sha256:" + hex.EncodeToString(h[:])
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
