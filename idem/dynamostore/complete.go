package dynamostore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// completeExpression marks the record COMPLETED with its result and new
// expiry, and drops the lease.
const completeExpression = "SET " + phStatus + " = :completed, " + phResult + " = :data, " + phExpiry + " = :exp REMOVE " + phLease

// encodedExpression is completeExpression for a result stored encoded,
// with its encoding.
const encodedExpression = "SET " + phStatus + " = :completed, " + phResult + " = :data, " + phEncoding + " = :enc, " + phExpiry + " = :exp REMOVE " + phLease

// omitExpression marks the record COMPLETED without its result, keeping
// the result's size instead, with its new expiry, and drops the lease.
const omitExpression = "SET " + phStatus + " = :completed, " + phOmitted + " = :omitted, " + phExpiry + " = :exp REMOVE " + phLease

// Complete implements idem.Store with one UpdateItem conditioned on the
// owner still holding the record IN_PROGRESS (idem.ErrLeaseLost if not).
//
// With Completion.Writes, which must each be a types.TransactWriteItem
// (idem.ErrUnsupportedWrite otherwise; at most MaxWrites), the update and
// the writes go in one TransactWriteItems: all of them are written or none.
// A store made WithMultiRegionStrong refuses them all
// (idem.ErrUnsupportedWrite): such a table runs no transactions.
//
// A Complete that finds the record already COMPLETED by the same owner
// with the same result succeeds: it is a retry (the SDK's, after a lost
// answer, or the caller's) of a completion that was applied. The
// transaction carries the owner as its ClientRequestToken, so DynamoDB
// itself makes its retries idempotent.
//
// A result that would make the item larger than DynamoDB's 400 KB limit fails with
// idem.ErrResultTooLarge before anything is sent; the claim is left as it
// was. A result stored encoded (Completion.Encoding) has its encoding in
// the Encoding attribute, counted in the item's size. With
// Completion.OmittedBytes the item gets that size in the OmittedBytes
// attribute and no result.
func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if c.Key == "" {
		return &idem.Error{Op: idem.OpComplete, Err: idem.ErrNoKey}
	}
	writes, err := s.transactWrites(c.Writes)
	if err != nil {
		return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: err}
	}
	if err := s.checkSize(c); err != nil {
		return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: err}
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
		}, persist, retryConflicts, errorChecksums)
		if err != nil {
			return s.completeFailed(c, err)
		}
		return nil
	}
	_, err = s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems:      append([]types.TransactWriteItem{{Update: u}}, writes...),
		ClientRequestToken: aws.String(requestToken(c)),
	}, persist, errorChecksums)
	if err != nil {
		return s.transactionFailed(c, err)
	}
	return nil
}

// completeAttempts is how many times a completion is sent before its
// error is returned, when the client retries at all (the DynamoDB client
// retries every request, 4 attempts by default): the SDK's retryer,
// raised for the completion, is the completion's one retry layer, since
// idem.Do sends it once. The work is done and paid for: a completion that
// gives up frees the key, and the work runs again. Retrying it is safe, as
// a completion applied before counts as a success. Between the attempts
// the SDK waits a random part of 25, 50, 100, 200 and 400 ms (775 ms at
// most in all), or of 1, 2, 4, 8 and 16 s after throttling (31 s), and
// each retry spends the client's retry quota (when it runs out, a request
// fails without retrying); none of it goes past the context's deadline,
// which idem.Do sets to its settle deadline.
const completeAttempts = 6

// persist raises a completion's attempts to completeAttempts, unless the
// client's retryer makes more or was set to one attempt (no retries).
func persist(o *dynamodb.Options) {
	if o.Retryer == nil {
		return
	}
	if n := o.Retryer.MaxAttempts(); n > 1 && n < completeAttempts {
		o.RetryMaxAttempts = completeAttempts
	}
}

// completeUpdate is the conditional update that completes the record.
func (s *Store) completeUpdate(c idem.Completion) *types.Update {
	values := ownedValues(c.Owner)
	values[":completed"] = str(string(idem.StatusCompleted))
	values[":exp"] = seconds(c.ExpiresAt)
	expr, names := completeExpression, s.names(phStatus, phResult, phExpiry, phLease, phOwner)
	if c.OmittedBytes > 0 {
		values[":omitted"] = num(int64(c.OmittedBytes))
		expr, names = omitExpression, s.names(phStatus, phOmitted, phExpiry, phLease, phOwner)
	} else {
		values[":data"] = bin(c.Result)
		if c.Encoding != storekit.EncodingRaw {
			values[":enc"] = str(c.Encoding)
			expr, names = encodedExpression, s.names(phStatus, phResult, phEncoding, phExpiry, phLease, phOwner)
		}
	}
	return &types.Update{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(c.Key),
		UpdateExpression:                    aws.String(expr),
		ConditionExpression:                 aws.String(ownedCondition),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// requestToken is the ClientRequestToken of c's transaction: the owner,
// which completes one claim once. A completion without its result follows
// a refused one of the same owner, whose token DynamoDB may have kept with
// other parameters; it gets a token of its own, derived from the owner so
// that its retries still share it.
func requestToken(c idem.Completion) string {
	if c.OmittedBytes <= 0 {
		return c.Owner
	}
	sum := sha256.Sum256([]byte("omitted\x00" + c.Owner))
	return hex.EncodeToString(sum[:16])
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
	return s.writeFailed(idem.OpComplete, c.Key, c.Owner, err)
}
