package producer

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxIDLen is the longest MessageDeduplicationId or MessageGroupId SQS
// takes.
const maxIDLen = 128

// hashedPrefix starts a deduplication id made by hashing the key.
const hashedPrefix = "sha256:"

// DeduplicationID returns the MessageDeduplicationId the producer sends
// for key on a FIFO queue: the key itself when SQS takes it as one (1 to
// 128 ASCII letters, digits and punctuation) and it does not start with
// "sha256:"; otherwise "sha256:" and the SHA-256 of the key in lowercase
// hex (71 characters). The same key always maps to the same id, and two
// keys to two ids (but for a SHA-256 collision).
func DeduplicationID(key string) string {
	if validID(key) && !strings.HasPrefix(key, hashedPrefix) {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return hashedPrefix + hex.EncodeToString(sum[:])
}

// validID reports whether SQS takes s as a MessageDeduplicationId or a
// MessageGroupId: 1 to 128 characters from '!' to '~'.
func validID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}
