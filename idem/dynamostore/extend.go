package dynamostore

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Extend implements idem.Store with one UpdateItem of the lease conditioned
// on the owner still holding the record IN_PROGRESS (idem.ErrLeaseLost if
// not). The record's expiry is left as it is. A zero leaseUntil removes the
// lease: the claim is then held until the record expires.
func (s *Store) Extend(ctx context.Context, key idem.Key, owner string, leaseUntil time.Time) error {
	if key == "" {
		return &idem.Error{Op: "extend", Err: idem.ErrNoKey}
	}
	values := ownedValues(owner)
	expr := "REMOVE " + phLease
	if !leaseUntil.IsZero() {
		expr = "SET " + phLease + " = :lease"
		values[":lease"] = millis(leaseUntil)
	}
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(key),
		UpdateExpression:                    aws.String(expr),
		ConditionExpression:                 aws.String(ownedCondition),
		ExpressionAttributeNames:            s.names(phLease, phOwner, phStatus),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err != nil {
		return s.writeFailed("extend", key, owner, err)
	}
	return nil
}
