package idem

import (
	"crypto/rand"
	"encoding/hex"
)

// NewOwner returns a random 128-bit token that identifies one claim. Every
// write after the claim is fenced by it.
func NewOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
