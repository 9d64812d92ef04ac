package streams

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// tableRecord is r, a record of the stream streamARN, as Lambda hands it
// to a function: the stream record's own fields unchanged (eventID,
// eventName, eventVersion, eventSource, awsRegion, userIdentity, and
// dynamodb's keys, images, sequence number, size, view type, creation
// time), and the stream's ARN as eventSourceARN.
func tableRecord(streamARN string, r types.Record) (events.DynamoDBEventRecord, error) {
	rec := events.DynamoDBEventRecord{
		AWSRegion:      aws.ToString(r.AwsRegion),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    aws.ToString(r.EventSource),
		EventVersion:   aws.ToString(r.EventVersion),
		EventSourceArn: streamARN,
	}
	if r.UserIdentity != nil {
		rec.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(r.UserIdentity.Type), PrincipalID: aws.ToString(r.UserIdentity.PrincipalId)}
	}
	d := r.Dynamodb
	if d == nil {
		return rec, fmt.Errorf("streams: record %s has no dynamodb part", rec.EventID)
	}
	var err error
	ch := &rec.Change
	ch.SequenceNumber = aws.ToString(d.SequenceNumber)
	ch.SizeBytes = aws.ToInt64(d.SizeBytes)
	ch.StreamViewType = string(d.StreamViewType)
	if d.ApproximateCreationDateTime != nil {
		ch.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	if ch.Keys, err = image(d.Keys); err != nil {
		return rec, fmt.Errorf("streams: record %s: keys: %w", ch.SequenceNumber, err)
	}
	if ch.NewImage, err = image(d.NewImage); err != nil {
		return rec, fmt.Errorf("streams: record %s: new image: %w", ch.SequenceNumber, err)
	}
	if ch.OldImage, err = image(d.OldImage); err != nil {
		return rec, fmt.Errorf("streams: record %s: old image: %w", ch.SequenceNumber, err)
	}
	return rec, nil
}

// image converts an item's attributes; nil stays nil (an image the
// stream's view type leaves out).
func image(m map[string]types.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		av, err := attribute(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// attribute converts one attribute value, of any of DynamoDB's ten types.
func attribute(v types.AttributeValue) (events.DynamoDBAttributeValue, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value), nil
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value), nil
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value), nil
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute(), nil
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value), nil
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value), nil
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value), nil
	case *types.AttributeValueMemberL:
		out := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := attribute(e)
			if err != nil {
				return av, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = av
		}
		return events.NewListAttribute(out), nil
	case *types.AttributeValueMemberM:
		m, err := image(v.Value)
		if err != nil {
			return events.DynamoDBAttributeValue{}, err
		}
		return events.NewMapAttribute(m), nil
	}
	return events.DynamoDBAttributeValue{}, fmt.Errorf("an attribute of type %T", v)
}
