package dynamostore

import "github.com/idemq/idemq/idem"

// SetMaxItemBytes changes the size Complete refuses to exceed, so a test
// can send DynamoDB an item it will refuse.
func SetMaxItemBytes(s *Store, n int) { s.maxItemBytes = n }

// CompletedSize is the bound Complete checks against MaxItemBytes.
func CompletedSize(s *Store, c idem.Completion) int { return s.completedSize(c) }

// CompleteAttempts and MaxItemBytes are the store's limits, for its tests.
const (
	CompleteAttempts = completeAttempts
	MaxItemBytes     = maxItemBytes
)
