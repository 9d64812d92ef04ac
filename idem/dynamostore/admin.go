package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

var _ idem.Admin = (*Store)(nil)

// scanBatch is the fewest items a List request asks DynamoDB to read, so
// that a filter selecting few of them does not cost a request per item.
const scanBatch = 100

// ErrBadCursor means a List cursor is not one List returned.
var ErrBadCursor = errors.New("dynamostore: not a cursor of this store's List")

// List implements idem.Admin with a Scan of the table whose
// FilterExpression selects the records (with WithSortKey, a Query of the
// records' partition). DynamoDB reads every item, selected or not, and
// bills each by its size: listing a large table costs a read of the whole
// table, about $0.125 per million 4 KB units at on-demand prices, halved
// by its eventually consistent reads. A page is cut at Limit records; its
// cursor is the key of the last one.
func (s *Store) List(ctx context.Context, req idem.ListRequest) (idem.ListPage, error) {
	limit, err := req.PageLimit("dynamostore")
	if err != nil {
		return idem.ListPage{}, err
	}
	start, err := s.decodeCursor(req.Cursor)
	if err != nil {
		return idem.ListPage{}, &idem.Error{Op: storekit.OpList, Err: err}
	}
	filter, names, values := s.listFilter(req)
	var page idem.ListPage
	for {
		batch := int32(max(limit-len(page.Records), scanBatch))
		var items []map[string]types.AttributeValue
		var last map[string]types.AttributeValue
		if s.sortKey != "" {
			names["#pk"] = s.attrs.Key
			values[":pk"] = str(s.partitionValue)
			out, err := s.api.Query(ctx, &dynamodb.QueryInput{
				TableName: aws.String(s.table), KeyConditionExpression: aws.String("#pk = :pk"),
				FilterExpression: filter, ExpressionAttributeNames: names, ExpressionAttributeValues: values,
				ExclusiveStartKey: start, Limit: aws.Int32(batch),
			}, errorChecksums)
			if err != nil {
				return idem.ListPage{}, s.fail(storekit.OpList, "", err)
			}
			items, last = out.Items, out.LastEvaluatedKey
		} else {
			out, err := s.api.Scan(ctx, &dynamodb.ScanInput{
				TableName: aws.String(s.table), FilterExpression: filter,
				ExpressionAttributeNames: nilIfEmpty(names), ExpressionAttributeValues: nilIfEmpty(values),
				ExclusiveStartKey: start, Limit: aws.Int32(batch),
			}, errorChecksums)
			if err != nil {
				return idem.ListPage{}, s.fail(storekit.OpList, "", err)
			}
			items, last = out.Items, out.LastEvaluatedKey
		}
		for _, item := range items {
			rec, err := s.record(item)
			if err != nil {
				return idem.ListPage{}, &idem.Error{Op: storekit.OpList, Key: rec.Key, Err: err}
			}
			if !req.Selects(rec) {
				continue
			}
			if len(page.Records) == limit {
				// More than the page holds: the next one starts
				// after the last record of this one.
				page.Next = s.encodeCursor(s.key(page.Records[limit-1].Key))
				return page, nil
			}
			page.Records = append(page.Records, rec)
		}
		if len(last) == 0 {
			return page, nil
		}
		start = last
		if len(page.Records) == limit {
			page.Next = s.encodeCursor(last)
			return page, nil
		}
	}
}

// listFilter is the FilterExpression of req, and its names and values.
func (s *Store) listFilter(req idem.ListRequest) (*string, map[string]string, map[string]types.AttributeValue) {
	var terms, placeholders []string
	values := map[string]types.AttributeValue{}
	if req.Status != "" {
		terms = append(terms, phStatus+" = :status")
		placeholders = append(placeholders, phStatus)
		values[":status"] = str(string(req.Status))
	}
	if !req.LeaseBefore.IsZero() {
		terms = append(terms, phStatus+" = :inprogress", phLease+" < :lease")
		placeholders = append(placeholders, phStatus, phLease)
		values[":inprogress"] = str(string(idem.StatusInProgress))
		values[":lease"] = millis(req.LeaseBefore)
	}
	if !req.ExpiresBefore.IsZero() {
		terms = append(terms, phExpiry+" < :expiry")
		placeholders = append(placeholders, phExpiry)
		values[":expiry"] = seconds(req.ExpiresBefore)
	}
	if len(terms) == 0 {
		return nil, map[string]string{}, values
	}
	return aws.String(strings.Join(terms, " AND ")), s.names(placeholders...), values
}

func nilIfEmpty[M ~map[string]V, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// encodeCursor writes an item key (string attributes) as a cursor.
func (s *Store) encodeCursor(key map[string]types.AttributeValue) string {
	m := make(map[string]string, len(key))
	for name, v := range key {
		if sv, ok := v.(*types.AttributeValueMemberS); ok {
			m[name] = sv.Value
		}
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor of encodeCursor; "" is nil, the start.
func (s *Store) decodeCursor(cursor string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	var m map[string]string
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil || m[s.keyAttr()] == "" || (s.sortKey != "" && m[s.attrs.Key] == "") {
		return nil, fmt.Errorf("%w: %q", ErrBadCursor, cursor)
	}
	key := make(map[string]types.AttributeValue, len(m))
	for name, v := range m {
		key[name] = str(v)
	}
	return key, nil
}

// Delete implements idem.Admin with one DeleteItem conditioned on the
// record's status, owner and lease being those read.
func (s *Store) Delete(ctx context.Context, d idem.Deletion) error {
	if d.Key == "" {
		return &idem.Error{Op: storekit.OpDelete, Err: idem.ErrNoKey}
	}
	cond := []string{phStatus + " = :status"}
	values := map[string]types.AttributeValue{":status": str(string(d.Status))}
	if d.Owner == "" {
		cond = append(cond, "attribute_not_exists("+phOwner+")")
	} else {
		cond = append(cond, phOwner+" = :owner")
		values[":owner"] = str(d.Owner)
	}
	if d.LeaseUntil.IsZero() {
		cond = append(cond, "attribute_not_exists("+phLease+")")
	} else {
		cond = append(cond, phLease+" = :lease")
		values[":lease"] = millis(d.LeaseUntil)
	}
	_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(d.Key),
		ConditionExpression:                 aws.String(strings.Join(cond, " AND ")),
		ExpressionAttributeNames:            s.names(phStatus, phOwner, phLease),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, errorChecksums)
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		changed := &idem.RecordChangedError{Key: d.Key}
		if len(failed.Item) > 0 {
			rec, _ := s.record(failed.Item)
			changed.Status, changed.Owner, changed.LeaseUntil = rec.Status, rec.Owner, rec.LeaseUntil
			if changed.Status == "" {
				changed.Status = "unknown" // a record, whatever it holds
			}
		}
		return &idem.Error{Op: storekit.OpDelete, Key: d.Key, Err: changed}
	case err != nil:
		return s.fail(storekit.OpDelete, d.Key, err)
	}
	return nil
}
