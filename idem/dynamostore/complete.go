package dynamostore

import (
	"bytes"
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// completeExpression marks the record COMPLETED with its result and new
// expiry, and drops the lease.
const completeExpression = "SET " + phStatus + " = :completed, " + phResult + " = :data, " + phExpiry + " = :exp REMOVE " + phLease

// Complete implements idem.Store with one UpdateItem conditioned on the
// owner still holding the record IN_PROGRESS (idem.ErrLeaseLost if not).
//
// With Completion.Writes, which must each be a types.TransactWriteItem
// (idem.ErrUnsupportedWrite otherwise; at most MaxWrites), the update and
// the writes go in one TransactWriteItems: all of them are written or none.
//
// A Complete that finds the record already COMPLETED by the same owner
// with the same result succeeds: it is a retry (the SDK's, after a lost
// answer, or the caller's) of a completion that was applied. The
// transaction carries the owner as its ClientRequestToken, so DynamoDB
// itself makes its retries idempotent.
//
// A result that would make the item larger than MaxItemBytes fails with
// idem.ErrResultTooLarge before anything is sent; the claim is left as it
// was.
func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if c.Key == "" {
		return &idem.Error{Op: "complete", Err: idem.ErrNoKey}
	}
	writes, err := transactWrites(c.Writes)
	if err != nil {
		return &idem.Error{Op: "complete", Key: c.Key, Err: err}
	}
	if err := s.checkSize(c); err != nil {
		return &idem.Error{Op: "complete", Key: c.Key, Err: err}
	}
	u := s.completeUpdate(c)
	if len(writes) == 0 {
		_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                           u.TableName,
			Key:                                 u.Key,
			UpdateExpression:                    u.UpdateExpression,
			ConditionExpression:                 u.ConditionExpression,
			ExpressionAttributeNames:            u.ExpressionAttributeNames,
			ExpressionAttributeValues:           u.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err != nil {
			return s.completeFailed(c, err)
		}
		return nil
	}
	_, err = s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems:      append([]types.TransactWriteItem{{Update: u}}, writes...),
		ClientRequestToken: aws.String(c.Owner),
	})
	if err != nil {
		return s.transactionFailed(c, err)
	}
	return nil
}

// completeUpdate is the conditional update that completes the record.
func (s *Store) completeUpdate(c idem.Completion) *types.Update {
	values := ownedValues(c.Owner)
	values[":completed"] = str(string(idem.StatusCompleted))
	values[":data"] = bin(c.Result)
	values[":exp"] = seconds(c.ExpiresAt)
	return &types.Update{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(c.Key),
		UpdateExpression:                    aws.String(completeExpression),
		ConditionExpression:                 aws.String(ownedCondition),
		ExpressionAttributeNames:            s.names(phStatus, phResult, phExpiry, phLease, phOwner),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// completeFailed maps the error of the completing UpdateItem: a record
// this owner already completed with this result is a success.
func (s *Store) completeFailed(c idem.Completion, err error) error {
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) && len(failed.Item) > 0 {
		if rec, _ := s.record(failed.Item); s.completedBy(rec, c) {
			return nil
		}
	}
	return s.writeFailed("complete", c.Key, c.Owner, err)
}

// completedBy reports whether rec is c, already applied.
func (s *Store) completedBy(rec idem.Record, c idem.Completion) bool {
	return rec.Status == idem.StatusCompleted && rec.Owner == c.Owner && bytes.Equal(rec.Result, c.Result)
}

// writeFailed maps the error of a write fenced by ownedCondition.
func (s *Store) writeFailed(op string, key idem.Key, owner string, err error) error {
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return s.leaseLost(op, key, owner, failed.Item)
	}
	return s.fail(op, key, err)
}
