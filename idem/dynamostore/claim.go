package dynamostore

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// claimCondition is idem.Record.Claimable evaluated by DynamoDB: the key is
// absent, or its record has expired (whole seconds), or it is IN_PROGRESS
// with a lease that has passed (whole milliseconds). A record without a
// lease attribute is held until it expires.
const claimCondition = "attribute_not_exists(" + phKey + ")" +
	" OR " + phExpiry + " < :now_s" +
	" OR (" + phStatus + " = :inprogress AND attribute_exists(" + phLease + ") AND " + phLease + " < :now_ms)"

// Claim implements idem.Store with one conditional PutItem. A claim that
// replaces a record gets it back (ReturnValues ALL_OLD) as Claim.Previous;
// a claim that fails its condition gets the record that holds the key
// (ReturnValuesOnConditionCheckFailure ALL_OLD), so a duplicate costs one
// request and no read.
func (s *Store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if req.Key == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Err: idem.ErrNoKey}
	}
	if req.Owner == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: req.Key, Err: errors.New("dynamostore: empty owner")}
	}
	out, err := s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                aws.String(s.table),
		Item:                     s.claimItem(req),
		ConditionExpression:      aws.String(claimCondition),
		ExpressionAttributeNames: s.names(phKey, phExpiry, phStatus, phLease),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now_s":      num(req.Now.Unix()),
			":now_ms":     num(req.Now.UnixMilli()),
			":inprogress": str(string(idem.StatusInProgress)),
		},
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, errorChecksums)
	if err != nil {
		var failed *types.ConditionalCheckFailedException
		if errors.As(err, &failed) {
			return s.held(req, failed.Item)
		}
		return idem.Claim{}, s.fail(idem.OpClaim, req.Key, err)
	}
	c := idem.Claim{Claimed: true}
	if len(out.Attributes) > 0 {
		// The claim is ours whatever the old item holds: report what
		// could be read of it rather than fail a claim that succeeded.
		prev, _ := s.record(out.Attributes)
		c.Previous = &prev
	}
	return c, nil
}

// held is the outcome of a claim that failed its condition, from the item
// DynamoDB returned with the failure.
//
// A record held IN_PROGRESS by req.Owner is this claim's own: the SDK
// retried a PutItem whose answer was lost after it was applied. It is
// reported as Claimed, or the key would wait out its own lease.
func (s *Store) held(req idem.ClaimRequest, item map[string]types.AttributeValue) (idem.Claim, error) {
	key := req.Key
	if len(item) == 0 {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: key, Err: errors.New(
			"dynamostore: the claim's condition failed but no record came back (ReturnValuesOnConditionCheckFailure ignored?)")}
	}
	rec, err := s.record(item)
	if err != nil {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: key, Err: err}
	}
	switch {
	case rec.Status == idem.StatusInProgress && rec.Owner == req.Owner:
		return idem.Claim{Claimed: true}, nil
	case rec.Status == idem.StatusCompleted, rec.Status == idem.StatusInProgress:
		return idem.Claim{Record: rec}, nil
	}
	return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: key, Err: fmt.Errorf("dynamostore: the record has an unknown status %q", rec.Status)}
}
