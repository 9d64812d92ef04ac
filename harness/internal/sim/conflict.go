package sim

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// conflictAPI is DynamoDB answering every write with
// ReplicatedWriteConflictException: on a global table with multi-Region
// strong consistency, another Region was modifying the item, and the write
// was not applied. A conflicted request is sent to a dynamostore.Store over
// it, so that what the instance gets back is what dynamostore itself makes
// of the conflict (its classification, not a copy of it here).
type conflictAPI struct{ dynamostore.API }

func conflictError() error {
	return &types.ReplicatedWriteConflictException{Message: aws.String("One or more items in this request are being modified by a request in another Region")}
}

func (conflictAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, conflictError()
}

func (conflictAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, conflictError()
}

func (conflictAPI) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, conflictError()
}

// conflicts is dynamostore over conflictAPI: every request it is sent is
// refused as a conflict, and answered as dynamostore answers it.
type conflicts struct{ store *dynamostore.Store }

func newConflicts() conflicts {
	s, err := dynamostore.New(conflictAPI{}, "sim")
	if err != nil {
		panic(err) // a client and a table name: New cannot fail
	}
	return conflicts{s}
}

// claim is dynamostore's answer to a claim in conflict.
func (c conflicts) claim(req idem.ClaimRequest) (idem.Claim, error) {
	return c.store.Claim(context.Background(), req)
}

// complete is dynamostore's answer to a completion in conflict. The staged
// writes are left out: the sim's are the memory store's, which dynamostore
// would refuse before sending, and a conflict refuses the record's update,
// and the writes with it, all the same.
func (c conflicts) complete(comp idem.Completion) error {
	comp.Writes = nil
	return c.store.Complete(context.Background(), comp)
}

// release is dynamostore's answer to a release in conflict.
func (c conflicts) release(key idem.Key, owner string) error {
	return c.store.Release(context.Background(), key, owner)
}

// extend is dynamostore's answer to an extension in conflict.
func (c conflicts) extend(e idem.Extension) error {
	return c.store.Extend(context.Background(), e)
}

// mutation breaks what a conflict is taken for on purpose, so that a test
// can show the simulation finds it.
type mutation int

const (
	sound           mutation = iota
	conflictClaims           // a claim in conflict is answered as claimed
	conflictApplies          // a completion in conflict is answered as applied
)
