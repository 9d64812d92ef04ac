// Package rfc8785 checks idem's canonical JSON, through
// idemjson.Fingerprint, against an independent implementation of RFC 8785
// (github.com/gowebpki/jcs): a test-only requirement that lives in the
// harness module so that no user's module graph carries it. The rules that
// need no reference implementation (exact values, a canonical form is its
// own) are idem's internal tests.
package rfc8785
