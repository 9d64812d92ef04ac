package dynamostore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/idemq/idemq/idem"
)

// ErrThrottled means DynamoDB refused a request for lack of capacity
// (ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded, or a transaction cancelled for throttling) after the
// SDK's own retries. The error also wraps DynamoDB's, for errors.As. The
// request may succeed later; nothing was written.
var ErrThrottled = errors.New("dynamostore: throttled")

// ErrWriteTooLarge means a staged write (Completion.Writes) puts an item
// larger than DynamoDB's 400 KB: nothing was sent, and the claim is left as
// it was (idem.Do releases it). Unlike a result too large to store, it does
// not settle the key: the staged writes belong with the completion.
var ErrWriteTooLarge = errors.New("dynamostore: staged write too large")

// throttlingCodes are the error codes of a throttled request.
var throttlingCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
}

// fail wraps an error from DynamoDB in an *idem.Error for op and key,
// marking a write refused because another Region was modifying the item
// with idem.ErrWriteConflict, throttling with ErrThrottled and, for
// complete, an oversized
// item with idem.ErrResultTooLarge. Any other ValidationException is
// marked idem.Permanent: the same request gets it again. DynamoDB's error
// stays reachable with errors.As.
func (s *Store) fail(op idem.Op, key idem.Key, err error) error {
	var cause error
	switch {
	case conflicted(err):
		cause = fmt.Errorf("%w: %w", idem.ErrWriteConflict, err)
	case throttled(err):
		cause = fmt.Errorf("%w: %w", ErrThrottled, err)
	case op == idem.OpComplete && itemTooLarge(err):
		cause = fmt.Errorf("%w: %w", idem.ErrResultTooLarge, err)
	case invalid(err):
		cause = idem.Permanent(fmt.Errorf("dynamostore: %w", err))
	default:
		cause = fmt.Errorf("dynamostore: %w", err)
	}
	return &idem.Error{Op: op, Key: key, Err: cause}
}

// invalid reports DynamoDB's refusal of a request it cannot run as sent.
func invalid(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}

func throttled(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && throttlingCodes[api.ErrorCode()]
}

// itemTooLarge reports DynamoDB's refusal of an item over 400 KB, a
// ValidationException whose message reads "Item size has exceeded the
// maximum allowed size" (PutItem) or "Item size to update has exceeded the
// maximum allowed size" (UpdateItem).
func itemTooLarge(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" && itemTooLargeMessage(api.ErrorMessage())
}

func itemTooLargeMessage(msg string) bool {
	return strings.HasPrefix(msg, "Item size") && strings.Contains(msg, "exceeded the maximum allowed size")
}

// leaseLost is idem.ErrLeaseLost for op on key, saying from the item that
// failed the condition (ALL_OLD) why owner no longer holds it.
func (s *Store) leaseLost(op idem.Op, key idem.Key, owner string, item map[string]types.AttributeValue) error {
	var rec idem.Record
	if len(item) > 0 {
		rec, _ = s.record(item)
		if rec.Status == "" {
			rec.Status = "unknown" // a record, whatever it holds
		}
	}
	return &idem.Error{Op: op, Key: key, Err: &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: owner}}
}

// writeFailed maps the error of a write fenced by ownedCondition.
func (s *Store) writeFailed(op idem.Op, key idem.Key, owner string, err error) error {
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return s.leaseLost(op, key, owner, failed.Item)
	}
	return s.fail(op, key, err)
}

// ErrTableMismatch means a table exists but is not the one a Store with
// these options needs: another key schema, no TTL on the expiry
// attribute, or replicas in other Regions that can each grant a claim
// (multi-Region eventual consistency).
var ErrTableMismatch = errors.New("dynamostore: table does not match the store")
