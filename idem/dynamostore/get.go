package dynamostore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Get reads the record for key as stored, expired or not, with a strongly
// consistent read; ok is false when there is none. It is for tests and
// operators: Do never reads before it claims.
func (s *Store) Get(ctx context.Context, key idem.Key) (rec idem.Record, ok bool, err error) {
	if key == "" {
		return idem.Record{}, false, &idem.Error{Op: storekit.OpGet, Err: idem.ErrNoKey}
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            s.key(key),
		ConsistentRead: aws.Bool(true),
	}, errorChecksums)
	if err != nil {
		return idem.Record{}, false, s.fail(storekit.OpGet, key, err)
	}
	if len(out.Item) == 0 {
		return idem.Record{}, false, nil
	}
	rec, err = s.record(out.Item)
	if err != nil {
		return rec, true, &idem.Error{Op: storekit.OpGet, Key: key, Err: err}
	}
	return rec, true, nil
}
