package idem

import (
	"crypto/rand"
	"encoding/base64"
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
