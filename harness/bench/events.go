package bench

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
)

// KeyField is the JSON body member that holds a message's idempotency key:
// idemq reads it by default (request.DefaultKeyField) and Powertools is
// configured with eventKeyJmesPath powertools_json(body).idempotency_key.
const KeyField = "idempotency_key"

// queueARN is the event source every message names: a standard queue.
const queueARN = "arn:aws:sqs:us-east-1:000000000000:idemq-bench"

// sentAt is the SentTimestamp every message carries (epoch milliseconds).
const sentAt = "1767225600000"

// message returns a message as the SQS event source delivers it the first
// time: a model request whose idempotency key is key, under message id
// number id of the run.
func message(run string, id int, key string) events.SQSMessage {
	body := fmt.Sprintf(`{"%s":%q,"model":"bench-model","prompt":"Summarise document %s in three sentences."}`, KeyField, key, key)
	sum := md5.Sum([]byte(body))
	msgID := fmt.Sprintf("%08s-0000-4000-8000-%012d", run, id)
	return events.SQSMessage{
		MessageId:     msgID,
		ReceiptHandle: msgID + "#1",
		Body:          body,
		Md5OfBody:     hex.EncodeToString(sum[:]),
		Attributes: map[string]string{
			"ApproximateReceiveCount":          "1",
			"SentTimestamp":                    sentAt,
			"SenderId":                         "AIDAIENQZJOLO23YVJ4VO",
			"ApproximateFirstReceiveTimestamp": sentAt,
		},
		MessageAttributes: map[string]events.SQSMessageAttribute{},
		EventSource:       "aws:sqs",
		EventSourceARN:    queueARN,
		AWSRegion:         "us-east-1",
	}
}

// redelivered returns msg as the queue delivers it again: the same id and
// body, the receive count one higher and a new receipt handle.
func redelivered(msg events.SQSMessage) events.SQSMessage {
	n, _ := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	out := msg
	out.Attributes = make(map[string]string, len(msg.Attributes))
	for k, v := range msg.Attributes {
		out.Attributes[k] = v
	}
	out.Attributes["ApproximateReceiveCount"] = strconv.Itoa(n + 1)
	out.ReceiptHandle = fmt.Sprintf("%s#%d", msg.MessageId, n+1)
	return out
}

// split cuts msgs into events of at most size records, in order.
func split(msgs []events.SQSMessage, size int) []events.SQSEvent {
	var out []events.SQSEvent
	for len(msgs) > 0 {
		n := min(size, len(msgs))
		out = append(out, events.SQSEvent{Records: msgs[:n:n]})
		msgs = msgs[n:]
	}
	return out
}

// records counts the records of evs.
func records(evs []events.SQSEvent) int {
	n := 0
	for _, ev := range evs {
		n += len(ev.Records)
	}
	return n
}

// batchRecords lists the records of each of evs.
func batchRecords(evs []events.SQSEvent) []int {
	out := make([]int, len(evs))
	for i, ev := range evs {
		out[i] = len(ev.Records)
	}
	return out
}
