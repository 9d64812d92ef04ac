package dynamostore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Release implements idem.Store with one DeleteItem conditioned on the
// owner still holding the record IN_PROGRESS (idem.ErrLeaseLost if not).
func (s *Store) Release(ctx context.Context, key idem.Key, owner string) error {
	if key == "" {
		return &idem.Error{Op: idem.OpRelease, Err: idem.ErrNoKey}
	}
	_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(key),
		ConditionExpression:                 aws.String(ownedCondition),
		ExpressionAttributeNames:            s.names(phOwner, phStatus),
		ExpressionAttributeValues:           ownedValues(owner),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, retryConflicts, errorChecksums)
	if err != nil {
		return s.writeFailed(idem.OpRelease, key, owner, err)
	}
	return nil
}
