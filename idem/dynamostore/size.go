package dynamostore

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

const (
	// maxNumberBytes is the most a number can take: up to 38 significant
	// digits, one byte per two, plus one.
	maxNumberBytes = 21
	// fingerprintReserve is counted for the fingerprint, which a
	// completion does not carry: Do stores an idem.Fingerprint in 22
	// bytes (storekit.StoredFingerprint), a caller's own may be longer. A
	// longer one still may make DynamoDB refuse the item; that refusal is
	// idem.ErrResultTooLarge too.
	fingerprintReserve = 1024
)

// completedSize is a bound on the size of the item c leaves: every
// attribute of a COMPLETED record, numbers at their largest and the
// fingerprint at fingerprintReserve.
func (s *Store) completedSize(c idem.Completion) int {
	a := s.attrs
	n := len(a.Key) + len(c.Key) + len(s.sortKey) + len(s.partitionValue) +
		len(a.Status) + len(idem.StatusCompleted) +
		len(a.Expiry) + maxNumberBytes +
		len(a.Owner) + len(c.Owner) +
		len(a.Fingerprint) + fingerprintReserve
	if c.OmittedBytes > 0 {
		return n + len(a.OmittedBytes) + maxNumberBytes
	}
	n += len(a.Result) + len(c.Result)
	if c.Encoding != storekit.EncodingRaw {
		n += len(a.Encoding) + len(c.Encoding)
	}
	return n
}

// minItemSize is a lower bound on an item's size as DynamoDB counts it:
// the names and the values' contents, without the overheads of numbers,
// lists and maps. An item over the limit by this bound is over it for
// DynamoDB too.
func minItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + minValueSize(v)
	}
	return n
}

func minValueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return 1
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		return sumLen(v.Value)
	case *types.AttributeValueMemberBS:
		return sumLen(v.Value)
	case *types.AttributeValueMemberNS:
		return len(v.Value)
	case *types.AttributeValueMemberL:
		n := 0
		for _, e := range v.Value {
			n += minValueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return minItemSize(v.Value)
	}
	return 0
}

func sumLen[E string | []byte](vs []E) int {
	n := 0
	for _, v := range vs {
		n += len(v)
	}
	return n
}

// checkSize refuses a completion whose item could exceed the limit.
func (s *Store) checkSize(c idem.Completion) error {
	if n := s.completedSize(c); n > s.maxItemBytes {
		return fmt.Errorf("%w: a %d-byte stored result makes a record of up to %d bytes; a DynamoDB item holds %d",
			idem.ErrResultTooLarge, len(c.Result), n, s.maxItemBytes)
	}
	return nil
}
