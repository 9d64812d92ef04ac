package stream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
)

// eventNameAttribute is the message attribute (in Attributes) holding a
// DynamoDB Streams record's event name: INSERT, MODIFY or REMOVE.
const eventNameAttribute = "eventName"

// DynamoDB is the Lambda handler of a DynamoDB table stream's batch (its
// event source mapping must have ReportBatchItemFailures). A record's
// message has the item's new image (the old one for REMOVE) as plain JSON
// (binaries as base64 text, sets as lists) for its body, its sequence number as the message id, the item's key as
// JSON as the message group, and its event name in Attributes["eventName"].
// It reports the sequence number of the first record not acknowledged, or
// nothing; an error (an image that cannot be written as JSON) brings the
// whole batch back.
func (s *Handlers) DynamoDB(ctx context.Context, event events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	msgs := make([]events.SQSMessage, len(event.Records))
	for i, r := range event.Records {
		image := r.Change.NewImage
		if r.EventName == string(events.DynamoDBOperationTypeRemove) {
			image = r.Change.OldImage
		}
		body, err := imageJSON(image)
		if err != nil {
			return events.DynamoDBEventResponse{}, fmt.Errorf("stream: record %d (sequence number %s): its image: %w; the whole batch comes back", i, r.Change.SequenceNumber, err)
		}
		key, err := imageJSON(r.Change.Keys)
		if err != nil {
			return events.DynamoDBEventResponse{}, fmt.Errorf("stream: record %d (sequence number %s): its keys: %w; the whole batch comes back", i, r.Change.SequenceNumber, err)
		}
		msgs[i] = events.SQSMessage{
			MessageId:      r.Change.SequenceNumber,
			Body:           body,
			Attributes:     map[string]string{groupAttribute: key, eventNameAttribute: r.EventName},
			EventSource:    r.EventSource,
			EventSourceARN: r.EventSourceArn,
			AWSRegion:      r.AWSRegion,
		}
	}
	at, err := s.run(ctx, msgs)
	if err != nil {
		return events.DynamoDBEventResponse{}, err
	}
	resp := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
	if at >= 0 {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: msgs[at].MessageId})
	}
	return resp, nil
}

// imageJSON writes an item's image as plain JSON, its attributes' names
// sorted (so that the item's key is always written the same way); "" for
// no image (a KEYS_ONLY stream's, or a REMOVE's on a NEW_IMAGE stream):
// the handler then finds no key in it.
func imageJSON(image map[string]events.DynamoDBAttributeValue) (string, error) {
	if image == nil {
		return "", nil
	}
	v, err := plainMap(image)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return "", err
	}
	return string(raw), nil
}

func plainMap(m map[string]events.DynamoDBAttributeValue) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, av := range m {
		v, err := plain(av)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// plain is a DynamoDB attribute value as plain JSON: a string, a number
// as its text, a boolean, null, a list, a map; a binary as its base64
// text (as in the stream's own JSON); a set as a list, in the stream's
// order.
func plain(av events.DynamoDBAttributeValue) (any, error) {
	switch av.DataType() {
	case events.DataTypeString:
		return av.String(), nil
	case events.DataTypeNumber:
		return number(av.Number())
	case events.DataTypeBoolean:
		return av.Boolean(), nil
	case events.DataTypeNull:
		return nil, nil
	case events.DataTypeBinary:
		return av.Binary(), nil // encoding/json writes []byte as base64
	case events.DataTypeStringSet:
		return av.StringSet(), nil
	case events.DataTypeBinarySet:
		return av.BinarySet(), nil
	case events.DataTypeNumberSet:
		out := make([]json.Number, 0, len(av.NumberSet()))
		for _, n := range av.NumberSet() {
			v, err := number(n)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case events.DataTypeList:
		out := make([]any, 0, len(av.List()))
		for i, e := range av.List() {
			v, err := plain(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, v)
		}
		return out, nil
	case events.DataTypeMap:
		return plainMap(av.Map())
	}
	return nil, fmt.Errorf("unknown attribute type %d", av.DataType())
}

// number is a DynamoDB number's text as a JSON number, unchanged: no
// float rounds it. A text JSON cannot hold as a number is an error.
func number(text string) (json.Number, error) {
	if _, err := json.Marshal(json.Number(text)); err != nil {
		return "", fmt.Errorf("number %q is no JSON number", text)
	}
	return json.Number(text), nil
}
