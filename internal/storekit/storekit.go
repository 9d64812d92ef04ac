// Package storekit holds what the model (package idem), the built-in
// stores and the tools that call a store share, so that every store judges
// and answers alike: the owner token of a claim, an expiry as the epoch
// seconds a store keeps, and the short form a fingerprint is stored in.
// It imports no package of the repository. A store written outside this
// repository needs none of it (docs/stores.md, "Writing a store").
package storekit

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
)

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

// ExpirySeconds converts an expiry to the epoch seconds a store keeps,
// rounding up so a record never expires early.
func ExpirySeconds(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() != 0 {
		s++
	}
	return s
}

// FingerprintPrefix begins every fingerprint idem.Fingerprint (and
// idemjson) makes: "sha256:" and the digest's 64 lowercase hex digits, 71
// bytes.
const FingerprintPrefix = "sha256:"

// storedFingerprintBytes is how much of a SHA-256 digest a stored
// fingerprint keeps: 128 bits, as many as Powertools' MD5 and far more than
// telling apart the payloads one key is sent with needs (making a payload
// that matches a given one takes about 2^128 tries).
const storedFingerprintBytes = 16

// StoredFingerprint is the form idem.Do writes fingerprint in
// (ClaimRequest, Record.Fingerprint): for a fingerprint of
// idem.Fingerprint's form ("sha256:" and 64 lowercase hex digits, 71
// bytes), the first 128 bits of its digest in unpadded base64url, 22
// bytes; any other string as it is. It is idempotent, and Do compares
// fingerprints through it, so a record written before the short form
// (holding the long one) still matches its payload. Every record carries
// its fingerprint, so the 49 bytes it saves are billed on every claim,
// completion and duplicate.
func StoredFingerprint(fp string) string {
	digest, ok := strings.CutPrefix(fp, FingerprintPrefix)
	if !ok || len(digest) != 2*32 || strings.ToLower(digest) != digest {
		return fp
	}
	var sum [32]byte
	if _, err := hex.Decode(sum[:], []byte(digest)); err != nil {
		return fp
	}
	return base64.RawURLEncoding.EncodeToString(sum[:storedFingerprintBytes])
}

// The encodings of a stored result (idem.Record.Encoding,
// idem.Completion.Encoding). Every store keeps the encoding beside the
// result, in an attribute, column or field of its own, so no stored
// result, whatever its bytes, is read in the wrong encoding; a store keeps
// any string it is given.
const (
	// EncodingRaw is a result stored as the work returned it: every result
	// Do does not compress, and every record written before compression
	// existed or by Powertools.
	EncodingRaw = ""
	// EncodingGzip is a result stored as one gzip member (RFC 1952) of the
	// work's result.
	EncodingGzip = "gzip"
	// EncodingBlob is a result kept in idem.Config.Blobs: the record's
	// Result is a pointer (JSON: the object's name, size, SHA-256 and the
	// encoding of the bytes it holds, EncodingRaw or EncodingGzip).
	EncodingBlob = "blob"
)

// The operations of a store's methods beyond idem.Store's, for the Op of
// the *idem.Error they return (untyped: they convert to idem.Op).
const (
	OpGet     = "get"     // reading a record (a store's Get)
	OpList    = "list"    // listing records (idem.Admin.List)
	OpDelete  = "delete"  // deleting a record as it was read (idem.Admin.Delete)
	OpCleanup = "cleanup" // deleting expired records (a store's own sweep)
)
