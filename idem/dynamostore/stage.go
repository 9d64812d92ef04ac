package dynamostore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Stage adds a DynamoDB write to the completion of the work running under
// ctx (an idem.Func run by idem.Do, or a handler.Func): it is committed in
// the same TransactWriteItems as the record's result, so the record and
// the write cannot disagree. It is idem.Stage with the type this store
// commits, so a wrong type is a compile error rather than
// idem.ErrUnsupportedWrite at completion.
func Stage(ctx context.Context, write types.TransactWriteItem) error {
	return idem.Stage(ctx, write)
}
