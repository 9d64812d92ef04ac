package stream

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
)

// Kinesis is the Lambda handler of a Kinesis data stream's batch (its
// event source mapping must have ReportBatchItemFailures). A record's
// message has its data as the body, its sequence number as the message
// id and its partition key as the message group. It reports the sequence
// number of the first record not acknowledged, or nothing; an error
// brings the whole batch back.
func (s *Handlers) Kinesis(ctx context.Context, event events.KinesisEvent) (events.KinesisEventResponse, error) {
	msgs := make([]events.SQSMessage, len(event.Records))
	for i, r := range event.Records {
		msgs[i] = events.SQSMessage{
			MessageId:      r.Kinesis.SequenceNumber,
			Body:           string(r.Kinesis.Data),
			Attributes:     map[string]string{groupAttribute: r.Kinesis.PartitionKey},
			EventSource:    r.EventSource,
			EventSourceARN: r.EventSourceArn,
			AWSRegion:      r.AwsRegion,
		}
	}
	at, err := s.run(ctx, msgs)
	if err != nil {
		return events.KinesisEventResponse{}, err
	}
	resp := events.KinesisEventResponse{BatchItemFailures: []events.KinesisBatchItemFailure{}}
	if at >= 0 {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: msgs[at].MessageId})
	}
	return resp, nil
}
