package idem

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The helpers of this file are for the authors of a Store and of tools
// that call one (see "Writing a store" in the package documentation), so
// that every store judges and answers alike.

// NewOwner returns a random 128-bit token that identifies one claim, in
// unpadded base64url (22 bytes: every record carries it, so its size is
// billed on every write). Every write after the claim is fenced by it;
// only the claim that made a token compares it, so tokens of another form
// (an older version's 32 hex digits) work beside it.
func NewOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// LeaseLost returns a *LeaseLostError for what a write fenced by owner
// found: the record's status and owner, status "" when there was none.
// Stores use it so that every store says it alike.
func LeaseLost(status Status, holder, owner string) error {
	return &LeaseLostError{Status: status, Holder: holder, Owner: owner}
}

// ExpirySeconds converts an expiry to the epoch seconds a store keeps,
// rounding up so a record never expires early.
func ExpirySeconds(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() != 0 {
		s++
	}
	return s
}

// fingerprintPrefix begins every fingerprint Fingerprint (and idemjson)
// makes: "sha256:" and the digest's 64 lowercase hex digits, 71 bytes.
const fingerprintPrefix = "sha256:"

// storedFingerprintBytes is how much of a SHA-256 digest a stored
// fingerprint keeps: 128 bits, as many as Powertools' MD5 and far more than
// telling apart the payloads one key is sent with needs (making a payload
// that matches a given one takes about 2^128 tries).
const storedFingerprintBytes = 16

// StoredFingerprint is the form Do writes fingerprint in (ClaimRequest,
// Record.Fingerprint): for a fingerprint of Fingerprint's form ("sha256:"
// and 64 lowercase hex digits, 71 bytes), the first 128 bits of its digest
// in unpadded base64url, 22 bytes; any other string as it is. It is
// idempotent, and Do compares fingerprints through it, so a record written
// before the short form (holding the long one) still matches its payload.
// Every record carries its fingerprint, so the 49 bytes it saves are
// billed on every claim, completion and duplicate.
func StoredFingerprint(fp string) string {
	digest, ok := strings.CutPrefix(fp, fingerprintPrefix)
	if !ok || len(digest) != 2*32 || strings.ToLower(digest) != digest {
		return fp
	}
	var sum [32]byte
	if _, err := hex.Decode(sum[:], []byte(digest)); err != nil {
		return fp
	}
	return base64.RawURLEncoding.EncodeToString(sum[:storedFingerprintBytes])
}

// sameFingerprint reports whether fingerprints a and b, each in the form
// Fingerprint makes or in the form StoredFingerprint makes of it, name the
// same payload.
func sameFingerprint(a, b string) bool {
	return a == b || StoredFingerprint(a) == StoredFingerprint(b)
}

// ByteLimit resolves a store's size setting n (a result's or an object's
// most bytes): 0 takes def, and a negative n is refused with a
// *ConfigError of package pkg naming field. Every store reads its limits
// through it, so a zero limit means the default everywhere.
func ByteLimit(pkg, field string, n, def int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0:
		return 0, &ConfigError{Package: pkg, Field: field, Value: fmt.Sprint(n), Err: errors.New("must be positive")}
	}
	return n, nil
}
