package dynamostore

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Placeholders for the attribute names in condition and update
// expressions, so the names can be configured (and may be reserved words,
// as "status" and "data" are).
const (
	phKey         = "#id"
	phExpiry      = "#exp"
	phLease       = "#lease"
	phStatus      = "#st"
	phResult      = "#data"
	phFingerprint = "#fp"
	phOwner       = "#owner"
	phOmitted     = "#omitted"
	phEncoding    = "#enc"
)

// names maps the placeholders an expression uses to the store's attribute
// names. DynamoDB rejects a request that defines a name it does not use.
func (s *Store) names(placeholders ...string) map[string]string {
	a := s.attrs
	m := make(map[string]string, len(placeholders))
	for _, ph := range placeholders {
		switch ph {
		case phKey:
			m[ph] = a.Key
		case phExpiry:
			m[ph] = a.Expiry
		case phLease:
			m[ph] = a.Lease
		case phStatus:
			m[ph] = a.Status
		case phResult:
			m[ph] = a.Result
		case phFingerprint:
			m[ph] = a.Fingerprint
		case phOwner:
			m[ph] = a.Owner
		case phOmitted:
			m[ph] = a.OmittedBytes
		case phEncoding:
			m[ph] = a.Encoding
		default:
			panic("dynamostore: unknown placeholder " + ph)
		}
	}
	return m
}

// ownedCondition holds when owner's claim still holds the record: every
// write after the claim is fenced by it.
const ownedCondition = phOwner + " = :owner AND " + phStatus + " = :inprogress"

// ownedValues are the values ownedCondition uses.
func ownedValues(owner string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		":owner":      str(owner),
		":inprogress": str(string(idem.StatusInProgress)),
	}
}
