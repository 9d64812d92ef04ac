package stream

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// kafkaKeyAttribute is the message attribute (in Attributes) holding a
// Kafka record's key, decoded; absent for a record without one.
const kafkaKeyAttribute = "kafkaKey"

// KafkaEventResponse is the answer to a Kafka batch (Amazon MSK or
// self-managed Apache Kafka), which aws-lambda-go does not define: one
// batch item failure per record not acknowledged, named by its partition
// (the topic-partition the event's Records has it under, "orders-0") and
// its offset. It marshals as Powertools for AWS Lambda (Python) and
// aws-lambda-rust-runtime answer a Kafka batch:
//
//	{"batchItemFailures":[{"itemIdentifier":{"partition":"orders-0","offset":15}}]}
//
// AWS's documentation (checked 2026-12) names the option but shows no
// syntax, and one third-party library answers a string
// "<topic>-<partition>-<offset>" instead. Were Lambda to read the answer
// otherwise, it would take it, as it takes an item identifier it cannot
// read on a stream, as a failure of the whole batch: the batch comes back,
// and its records done replay their stored results without running.
//
// Nothing listed (an empty list) means every record is done.
type KafkaEventResponse struct {
	BatchItemFailures []struct {
		ItemIdentifier struct {
			Partition string `json:"partition"`
			Offset    int64  `json:"offset"`
		} `json:"itemIdentifier"`
	} `json:"batchItemFailures"`
}

// kafkaItemFailure is the type of KafkaEventResponse.BatchItemFailures'
// elements (the same type: the compiler refuses to assign one to the
// other if they part).
type kafkaItemFailure = struct {
	ItemIdentifier struct {
		Partition string `json:"partition"`
		Offset    int64  `json:"offset"`
	} `json:"itemIdentifier"`
}

// Kafka is the Lambda handler of an Amazon MSK or self-managed Apache
// Kafka batch (its event source mapping in provisioned mode, with
// ReportBatchItemFailures: without them Lambda ignores the answer). A
// batch holds several partitions; each is one ordered stream, as a shard
// is, and runs as its own message group: after a record not acknowledged,
// no later record of its partition starts, while the other partitions go
// on. Within a partition records run in offset order whatever their key:
// Kafka orders a partition, not a key, and the producer's partitioner,
// not the key alone, says which records share one.
//
// A record's message has its value, decoded, as the body,
// "topic-partition@offset" ("orders-0@15") as the message id, the
// topic-partition as the message group, its key, decoded, in
// Attributes["kafkaKey"], and its headers as message attributes (a String
// when the value is UTF-8, else Binary; a header named twice keeps its
// first value), so that request.Identity.KeyAttribute can read the key
// from a header. A record without a value (a tombstone) has an empty
// body: with no key to read, it holds its partition as any record whose
// key cannot be read does, unless handler.WithKeyless runs it.
//
// The response lists every record not acknowledged, so that each
// partition comes back from its first one whether Lambda resumes a
// partition from the lowest offset listed or retries the records listed;
// those after it that succeeded replay their stored results. An error
// brings the whole batch back: a record that is not where the event files
// it (its topic and partition against its Records key), a negative or
// repeated offset in a partition, a key or value that is not base64.
func (s *Handlers) Kafka(ctx context.Context, event events.KafkaEvent) (KafkaEventResponse, error) {
	recs, err := kafkaRecords(event)
	if err != nil {
		return KafkaEventResponse{}, err
	}
	msgs := make([]events.SQSMessage, len(recs))
	for i, r := range recs {
		msg, err := kafkaMessage(r, event)
		if err != nil {
			return KafkaEventResponse{}, fmt.Errorf("stream: record %s-%d@%d: %w; the whole batch comes back", r.Topic, r.Partition, r.Offset, err)
		}
		msgs[i] = msg
	}
	reported, err := s.reported(ctx, msgs)
	if err != nil {
		return KafkaEventResponse{}, err
	}
	resp := KafkaEventResponse{BatchItemFailures: []kafkaItemFailure{}}
	for i, r := range reported {
		if r {
			var f kafkaItemFailure
			f.ItemIdentifier.Partition, f.ItemIdentifier.Offset = recs[i].tp, recs[i].Offset
			resp.BatchItemFailures = append(resp.BatchItemFailures, f)
		}
	}
	return resp, nil
}

// kafkaRecord is a record of a Kafka batch and its topic-partition, as
// the event's Records keys it.
type kafkaRecord struct {
	events.KafkaRecord
	tp string
}

// kafkaRecords lists the batch's records partition by partition (in the
// order of their topic-partitions' names), each partition's in offset
// order, after checking that every record is filed under its own
// topic-partition and that no offset is negative or repeated in its
// partition.
func kafkaRecords(event events.KafkaEvent) ([]kafkaRecord, error) {
	tps := make([]string, 0, len(event.Records))
	n := 0
	for tp, rs := range event.Records {
		tps = append(tps, tp)
		n += len(rs)
	}
	slices.Sort(tps)
	out := make([]kafkaRecord, 0, n)
	for _, tp := range tps {
		part := make([]kafkaRecord, 0, len(event.Records[tp]))
		for i, r := range event.Records[tp] {
			if r.Topic == "" || r.Partition < 0 || r.Topic+"-"+strconv.FormatInt(r.Partition, 10) != tp {
				return nil, fmt.Errorf("stream: record %d under %q has topic %q and partition %d, which is not where it is filed; the whole batch comes back", i, tp, r.Topic, r.Partition)
			}
			if r.Offset < 0 {
				return nil, fmt.Errorf("stream: record %d under %q has offset %d; the whole batch comes back", i, tp, r.Offset)
			}
			part = append(part, kafkaRecord{KafkaRecord: r, tp: tp})
		}
		slices.SortStableFunc(part, func(a, b kafkaRecord) int { return cmp.Compare(a.Offset, b.Offset) })
		for i := 1; i < len(part); i++ {
			if part[i].Offset == part[i-1].Offset {
				return nil, fmt.Errorf("stream: offset %d appears twice in %q; the whole batch comes back", part[i].Offset, tp)
			}
		}
		out = append(out, part...)
	}
	return out, nil
}

// kafkaMessage is the message the function sees for record r of event.
func kafkaMessage(r kafkaRecord, event events.KafkaEvent) (events.SQSMessage, error) {
	value, err := base64.StdEncoding.DecodeString(r.Value)
	if err != nil {
		return events.SQSMessage{}, fmt.Errorf("its value is not base64: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(r.Key)
	if err != nil {
		return events.SQSMessage{}, fmt.Errorf("its key is not base64: %w", err)
	}
	msg := events.SQSMessage{
		MessageId:      r.tp + "@" + strconv.FormatInt(r.Offset, 10),
		Body:           string(value),
		Attributes:     map[string]string{groupAttribute: r.tp},
		EventSource:    event.EventSource,
		EventSourceARN: event.EventSourceARN,
	}
	if r.Key != "" {
		msg.Attributes[kafkaKeyAttribute] = string(key)
	}
	for _, h := range r.Headers {
		for name, v := range h {
			if _, seen := msg.MessageAttributes[name]; seen {
				continue
			}
			if msg.MessageAttributes == nil {
				msg.MessageAttributes = map[string]events.SQSMessageAttribute{}
			}
			a := events.SQSMessageAttribute{DataType: "Binary", BinaryValue: []byte(v)}
			if utf8.Valid(v) {
				s := string(v)
				a = events.SQSMessageAttribute{DataType: "String", StringValue: &s}
			}
			msg.MessageAttributes[name] = a
		}
	}
	return msg, nil
}
