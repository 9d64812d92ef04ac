package dynamostore

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Extend implements idem.Store with one UpdateItem of the lease and the
// expiry conditioned on the owner still holding the record IN_PROGRESS
// (idem.ErrLeaseLost if not). A zero LeaseUntil removes the lease: the
// claim is then held until the record expires; a zero ExpiresAt leaves the
// expiry as it is.
func (s *Store) Extend(ctx context.Context, e idem.Extension) error {
	key, owner := e.Key, e.Owner
	if key == "" {
		return &idem.Error{Op: idem.OpExtend, Err: idem.ErrNoKey}
	}
	values := ownedValues(owner)
	names := []string{phLease, phOwner, phStatus}
	var set []string
	remove := ""
	if e.LeaseUntil.IsZero() {
		remove = " REMOVE " + phLease
	} else {
		set = append(set, phLease+" = :lease")
		values[":lease"] = millis(e.LeaseUntil)
	}
	if !e.ExpiresAt.IsZero() {
		set = append(set, phExpiry+" = :expiry")
		values[":expiry"] = seconds(e.ExpiresAt)
		names = append(names, phExpiry)
	}
	expr := remove
	if len(set) > 0 {
		expr = "SET " + strings.Join(set, ", ") + remove
	}
	expr = strings.TrimSpace(expr)
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(key),
		UpdateExpression:                    aws.String(expr),
		ConditionExpression:                 aws.String(ownedCondition),
		ExpressionAttributeNames:            s.names(names...),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, retryConflicts, errorChecksums)
	if err != nil {
		return s.writeFailed(idem.OpExtend, key, owner, err)
	}
	return nil
}
