package idem

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

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
// idempotent, and SameFingerprint compares through it, so a record written
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

// SameFingerprint reports whether fingerprints a and b, each in the form
// Fingerprint makes or in the form StoredFingerprint makes of it, name the
// same payload.
func SameFingerprint(a, b string) bool {
	return a == b || StoredFingerprint(a) == StoredFingerprint(b)
}
