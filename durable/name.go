package durable

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Execution names, as Lambda takes them (InvokeInput.DurableExecutionName;
// the API reference's DurableExecutionName shape): 1 to 64
// characters of A-Z, a-z, 0-9, '-' and '_'.
const (
	// maxNameLength is the longest execution name Lambda takes.
	maxNameLength = 64
	// readableChars is how much of a key a hashed name keeps, readable,
	// before its hash.
	readableChars = maxNameLength - 1 - hashChars
	// hashChars is the hex digits of a hashed name's hash: 160 bits of
	// SHA-256, lower case (so no name depends on whether Lambda compares
	// names with their case).
	hashChars = 40
)

// ExecutionName maps a key to the durable execution name it starts, the
// same name for the same key, always:
//
//   - a key that is already a valid name (1 to 64 characters of A-Z, a-z,
//     0-9, '-', '_') is its own name;
//   - any other key (too long, or holding other characters: ':', '#', '.',
//     a space, non-ASCII text) becomes its first 23 characters with each
//     invalid one replaced by '_', then '-', then 40 hex digits of the
//     SHA-256 of the whole key: 64 characters at most.
//
// Two keys that differ get two names, except that a valid key spelled
// exactly as another key's hashed name would share it: finding such a key
// takes a second preimage of 160 bits of SHA-256.
func ExecutionName(key string) string {
	if validName(key) {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(maxNameLength)
	for i := 0; i < len(key) && b.Len() < readableChars; i++ {
		if c := key[i]; nameChar(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(sum[:])[:hashChars])
	return b.String()
}

// validName reports whether Lambda takes s as an execution name.
func validName(s string) bool {
	if s == "" || len(s) > maxNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameChar(s[i]) {
			return false
		}
	}
	return true
}

func nameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
