package idem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/idemq/idemq/internal/storekit"
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

// MaxValueBytes is the longest key value the key rule (CheckValue) takes:
// the part of a key after its namespace, as a message or a caller gives
// it.
const MaxValueBytes = 1024

// CheckValue is the one key rule, which every key made by ClientKey,
// NaturalKey and ScopedKey, and every scope, obeys: a value is not empty
// (ErrNoKey), is valid UTF-8, holds no control character (Unicode's Cc:
// U+0000–U+001F, U+007F–U+009F) and is at most MaxValueBytes bytes (each
// ErrBadKey). So no store refuses a key, no terminal is steered by one, and
// a key read back from JSON or a URL is the key that was written.
func CheckValue(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("%w: the key is empty", ErrNoKey)
	case len(v) > MaxValueBytes:
		return fmt.Errorf("%w: it is %d bytes, over %d", ErrBadKey, len(v), MaxValueBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: it is not UTF-8 text", ErrBadKey)
	}
	for i, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: it holds the control character %U at byte %d", ErrBadKey, r, i)
		}
	}
	return nil
}

// ClientKey makes a key from a key the caller supplies (an
// "Idempotency-Key" the producer chose). An empty key or namespace is
// ErrNoKey; a key the key rule refuses (CheckValue) is ErrBadKey.
func ClientKey(namespace, key string) (Key, error) {
	if err := checkNamespace(namespace); err != nil {
		return "", err
	}
	if err := CheckValue(key); err != nil {
		return "", err
	}
	return join(escape(namespace), key), nil
}

// ScopedKey makes the key of a request a caller made within its scope
// (an account, a principal: a front door's callers are kept apart by it).
// Its form is one no ClientKey or NaturalKey can take, in any namespace:
// the namespace, ":", the scope and "#" before the key, where theirs have
// the namespace and "#" (a namespace and a scope are escaped, so neither
// holds ":" or "#"). So a producer that sends the key "acme:k" never
// reaches caller acme's key "k". Namespace, scope and key obey the key
// rule (CheckValue).
func ScopedKey(namespace, scope, key string) (Key, error) {
	if err := checkNamespace(namespace); err != nil {
		return "", err
	}
	if err := CheckValue(scope); err != nil {
		return "", fmt.Errorf("scope: %w", err)
	}
	if err := CheckValue(key); err != nil {
		return "", err
	}
	return join(escape(namespace)+":"+escape(scope), key), nil
}

// checkNamespace applies the key rule to a namespace.
func checkNamespace(namespace string) error {
	if namespace == "" {
		return errNoNamespace
	}
	if err := CheckValue(namespace); err != nil {
		return fmt.Errorf("namespace: %w", err)
	}
	return nil
}

// Parts splits a key made by ClientKey, NaturalKey or ScopedKey into its
// namespace and scope, escaped as stored ("" for a key without a scope),
// and its value. A key of another form (no "#") is all value.
func (k Key) Parts() (namespace, scope, value string) {
	head, value, ok := strings.Cut(string(k), "#")
	if !ok {
		return "", "", string(k)
	}
	namespace, scope, _ = strings.Cut(head, ":")
	return namespace, scope, value
}

// InNamespace reports whether k was made in namespace, with a scope or
// without.
func (k Key) InNamespace(namespace string) bool {
	ns, _, _ := k.Parts()
	return namespace != "" && ns == escape(namespace) && strings.Contains(string(k), "#")
}

// NaturalKey makes a key from the parts that name the request in the
// business's own terms, for example ("summarise", "doc", "4471", "v9").
// Parts are escaped, so ("a:b") and ("a", "b") are different keys. No parts,
// or an empty part, is ErrNoKey.
func NaturalKey(namespace string, parts ...string) (Key, error) {
	if err := checkNamespace(namespace); err != nil {
		return "", err
	}
	v, err := NaturalValue(parts...)
	if err != nil {
		return "", err
	}
	if err := CheckValue(v); err != nil {
		return "", err
	}
	return join(escape(namespace), v), nil
}

// NaturalValue is NaturalKey without its namespace: the parts escaped and
// joined, what a request.Identity.KeyFunc returns for a natural key (the handler
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

// join puts head (the escaped namespace, and a scope) before the value,
// hashing the whole key when it is too long to store.
func join(head, value string) Key {
	k := head + "#" + value
	if len(k) <= MaxKeyBytes {
		return Key(k)
	}
	if len(head) > MaxKeyBytes/2 {
		head = strings.ToValidUTF8(head[:MaxKeyBytes/2], "")
	}
	return Key(head + "#" + Fingerprint([]byte(k)))
}

var escaper = strings.NewReplacer("%", "%25", ":", "%3A", "#", "%23")

func escape(s string) string { return escaper.Replace(s) }

// sameFingerprint reports whether fingerprints a and b, each in the form
// Fingerprint makes or in the stored form (storekit.StoredFingerprint),
// name the same payload.
func sameFingerprint(a, b string) bool {
	return a == b || storekit.StoredFingerprint(a) == storekit.StoredFingerprint(b)
}
