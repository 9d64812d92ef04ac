package dynamostore

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// MaxWrites is the most writes one Completion can carry: a DynamoDB
// transaction holds 100 actions, one of which is the record's update.
const MaxWrites = 99

// transactWrites checks the staged writes: each must be a
// types.TransactWriteItem, they must fit in one transaction, and the
// table must run transactions.
func (s *Store) transactWrites(ws []any) ([]types.TransactWriteItem, error) {
	if len(ws) > 0 && s.noTransactions {
		return nil, fmt.Errorf("%w: %d staged writes: dynamostore: the store was made WithMultiRegionStrong, and a global table with "+
			"multi-Region strong consistency runs no transactions (TransactWriteItems), so nothing can be committed with the record",
			idem.ErrUnsupportedWrite, len(ws))
	}
	if len(ws) > MaxWrites {
		return nil, fmt.Errorf("%w: %d staged writes, a transaction holds the record and at most %d more",
			idem.ErrUnsupportedWrite, len(ws), MaxWrites)
	}
	items := make([]types.TransactWriteItem, len(ws))
	for i, w := range ws {
		item, ok := w.(types.TransactWriteItem)
		if !ok {
			return nil, fmt.Errorf("%w: staged write %d is a %T; the DynamoDB store commits a types.TransactWriteItem",
				idem.ErrUnsupportedWrite, i, w)
		}
		if item.Put != nil {
			if n := minItemSize(item.Put.Item); n > maxItemBytes {
				return nil, idem.Permanent(fmt.Errorf("%w: staged write %d puts an item of at least %d bytes; a DynamoDB item holds %d",
					ErrWriteTooLarge, i, n, maxItemBytes))
			}
		}
		items[i] = item
	}
	return items, nil
}

// transactionFailed maps the error of the transaction that completes c: the
// record's update failing its condition is idem.ErrLeaseLost; any other
// cancellation is an error naming each action's reason, marked
// idem.Permanent when every reason is one the same transaction gets again
// (a staged write's condition that failed, a write DynamoDB refuses).
func (s *Store) transactionFailed(c idem.Completion, err error) error {
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) {
		return s.writeFailed(idem.OpComplete, c.Key, c.Owner, err)
	}
	reasons := cancelled.CancellationReasons
	if len(reasons) > 0 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
		if rec, _ := s.record(reasons[0].Item); len(reasons[0].Item) > 0 && s.completedBy(rec, c) {
			return nil // the transaction was applied before, its staged writes with it
		}
		return s.leaseLost(idem.OpComplete, c.Key, c.Owner, reasons[0].Item)
	}
	var (
		parts      []string
		throttled  bool
		tooLarge   bool
		definitive = true
	)
	for i, r := range reasons {
		code := aws.ToString(r.Code)
		if code == "" || code == "None" {
			continue
		}
		what := "the record"
		if i > 0 {
			what = fmt.Sprintf("staged write %d", i-1)
		}
		part := what + ": " + code
		if msg := aws.ToString(r.Message); msg != "" {
			part += " (" + msg + ")"
		}
		parts = append(parts, part)
		throttled = throttled || throttlingReasons[code]
		definitive = definitive && definitiveReasons[code]
		tooLarge = tooLarge || (i == 0 && itemTooLargeMessage(aws.ToString(r.Message)))
	}
	if len(parts) == 0 {
		parts, definitive = []string{"no reason given"}, false
	}
	why := "transaction cancelled: " + strings.Join(parts, "; ")
	var cause error
	switch {
	case tooLarge:
		cause = fmt.Errorf("%w: %s: %w", idem.ErrResultTooLarge, why, err)
	case throttled:
		cause = fmt.Errorf("%w: %s: %w", ErrThrottled, why, err)
	case definitive:
		cause = idem.Permanent(fmt.Errorf("dynamostore: %s: %w", why, err))
	default:
		cause = fmt.Errorf("dynamostore: %s: %w", why, err)
	}
	return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: cause}
}

// definitiveReasons are the cancellation reason codes the same transaction
// gets again: not a conflict with another transaction, nor throttling.
var definitiveReasons = map[string]bool{
	"ConditionalCheckFailed":          true,
	"ValidationError":                 true,
	"ItemCollectionSizeLimitExceeded": true,
}

// throttlingReasons are the cancellation reason codes that mean the
// transaction was throttled.
var throttlingReasons = map[string]bool{
	"ThrottlingError":               true,
	"ProvisionedThroughputExceeded": true,
	"RequestLimitExceeded":          true,
}

// completedBy reports whether rec is c, already applied.
func (s *Store) completedBy(rec idem.Record, c idem.Completion) bool {
	if rec.Status != idem.StatusCompleted || rec.Owner != c.Owner {
		return false
	}
	if c.OmittedBytes > 0 {
		return rec.OmittedBytes == c.OmittedBytes
	}
	return rec.OmittedBytes == 0 && rec.Encoding == c.Encoding && bytes.Equal(rec.Result, c.Result)
}
