package bench

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/handler"
)

// Handler is an SQS batch handler with partial batch responses, as
// lambda.Start takes it.
type Handler = func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// floorAPI is the part of the DynamoDB client the floor calls.
type floorAPI interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// The floor's claim condition is idemq's and Powertools' (absent, expired,
// or IN_PROGRESS with a passed lease), so DynamoDB does the same work.
const floorClaim = "attribute_not_exists(#id) OR #exp < :now_s OR (#st = :inprogress AND attribute_exists(#lease) AND #lease < :now_ms)"

// floorFence is the fenced floor's completion condition: idemq's.
const floorFence = "#owner = :owner AND #st = :inprogress"

var (
	errFloorNoKey = errors.New("bench: the body has no idempotency key")
	errFloorHeld  = errors.New("bench: another worker holds the key")
)

// floorHandler is the raw-SDK floor: the least a hand-written handler can
// do per record — one conditional PutItem (the claim, with
// ReturnValuesOnConditionCheckFailure ALL_OLD so a duplicate costs that one
// request) and, after the work, one UpdateItem (the result) — at the same
// bounded concurrency as idemq, with a partial batch response, and nothing
// else: no release when the work fails, no in-batch or local-cache
// de-duplication, no logs.
//
// Plain, the UpdateItem is unconditional and the item holds only what
// Powertools writes. Fenced, the requests are idemq's on the wire: the
// claim also writes an owner token and a SHA-256 of the body and asks for
// the old item (ReturnValues ALL_OLD), and the completion is conditioned on
// the owner still holding the record — so what separates the fenced floor
// from idemq is the library, not the requests.
func floorHandler(api floorAPI, table string, work handler.Func, concurrency int, fenced bool) Handler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		failed := make([]bool, len(ev.Records))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(concurrency, len(ev.Records)) {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(ev.Records) {
						return
					}
					failed[i] = floorRecord(ctx, api, table, work, ev.Records[i], fenced) != nil
				}
			})
		}
		wg.Wait()
		var resp events.SQSEventResponse
		for i, f := range failed {
			if f {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
			}
		}
		return resp, nil
	}
}

// floorRecord claims, works and completes one record; nil when the record
// is done (now, or before).
func floorRecord(ctx context.Context, api floorAPI, table string, work handler.Func, msg events.SQSMessage, fenced bool) error {
	var body struct {
		Key string `json:"idempotency_key"`
	}
	if err := json.Unmarshal([]byte(msg.Body), &body); err != nil || body.Key == "" {
		return errFloorNoKey
	}
	key := &types.AttributeValueMemberS{Value: "bench#" + body.Key}
	now := time.Now()
	lease := now.Add(15 * time.Minute)
	if d, ok := ctx.Deadline(); ok {
		lease = d
	}
	claim := &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"id":                     key,
			"status":                 &types.AttributeValueMemberS{Value: "INPROGRESS"},
			"expiration":             number(now.Add(15 * 24 * time.Hour).Unix()),
			"in_progress_expiration": number(lease.UnixMilli()),
		},
		ConditionExpression:      aws.String(floorClaim),
		ExpressionAttributeNames: map[string]string{"#id": "id", "#exp": "expiration", "#st": "status", "#lease": "in_progress_expiration"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now_s":      number(now.Unix()),
			":now_ms":     number(now.UnixMilli()),
			":inprogress": &types.AttributeValueMemberS{Value: "INPROGRESS"},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	var owner *types.AttributeValueMemberS
	if fenced {
		var tok [16]byte
		_, _ = rand.Read(tok[:])
		sum := sha256.Sum256([]byte(msg.Body))
		owner = &types.AttributeValueMemberS{Value: hex.EncodeToString(tok[:])}
		claim.Item["owner"] = owner
		claim.Item["validation"] = &types.AttributeValueMemberS{Value: hex.EncodeToString(sum[:])}
		claim.ReturnValues = types.ReturnValueAllOld
	}
	_, err := api.PutItem(ctx, claim)
	var held *types.ConditionalCheckFailedException
	if errors.As(err, &held) {
		if s, ok := held.Item["status"].(*types.AttributeValueMemberS); ok && s.Value == "COMPLETED" {
			return nil // done before
		}
		return errFloorHeld
	}
	if err != nil {
		return err
	}
	result, err := work(ctx, msg)
	if err != nil {
		return err
	}
	complete := &dynamodb.UpdateItemInput{
		TableName:                aws.String(table),
		Key:                      map[string]types.AttributeValue{"id": key},
		UpdateExpression:         aws.String("SET #st = :completed, #data = :data REMOVE #lease"),
		ExpressionAttributeNames: map[string]string{"#st": "status", "#data": "data", "#lease": "in_progress_expiration"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":completed": &types.AttributeValueMemberS{Value: "COMPLETED"},
			":data":      &types.AttributeValueMemberB{Value: result},
		},
	}
	if fenced {
		complete.ConditionExpression = aws.String(floorFence)
		complete.ExpressionAttributeNames["#owner"] = "owner"
		complete.ExpressionAttributeValues[":owner"] = owner
		complete.ExpressionAttributeValues[":inprogress"] = &types.AttributeValueMemberS{Value: "INPROGRESS"}
		complete.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	_, err = api.UpdateItem(ctx, complete)
	return err
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
