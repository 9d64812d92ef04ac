package handlertest

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
)

// The queue ARNs the helpers put on the messages they make. Only the
// ".fifo" suffix tells the handler a queue is FIFO, as it tells Lambda.
const (
	EventSourceARN     = "arn:aws:sqs:us-east-1:000000000000:handlertest"
	FIFOEventSourceARN = "arn:aws:sqs:us-east-1:000000000000:handlertest.fifo"
)

// groupAttribute is the SQS system attribute naming a message's group.
const groupAttribute = "MessageGroupId"

// Message returns a message as the SQS event source delivers it the first
// time: ApproximateReceiveCount "1", a receipt handle derived from id.
func Message(id, body string) events.SQSMessage {
	return events.SQSMessage{
		MessageId:      id,
		ReceiptHandle:  id + "#1",
		Body:           body,
		Attributes:     map[string]string{"ApproximateReceiveCount": "1"},
		EventSource:    "aws:sqs",
		EventSourceARN: EventSourceARN,
		AWSRegion:      "us-east-1",
	}
}

// FIFOMessage returns a message as a FIFO queue delivers it the first
// time: Message(id, body) in message group group, from FIFOEventSourceARN.
func FIFOMessage(id, body, group string) events.SQSMessage {
	m := Message(id, body)
	m.EventSourceARN = FIFOEventSourceARN
	m.Attributes[groupAttribute] = group
	return m
}

// JSONMessage returns Message(id, body) with body encoded as JSON. It
// panics if v cannot be encoded.
func JSONMessage(id string, v any) events.SQSMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic("handlertest: " + err.Error())
	}
	return Message(id, string(raw))
}

// Event returns an SQS event holding msgs in order.
func Event(msgs ...events.SQSMessage) events.SQSEvent {
	return events.SQSEvent{Records: msgs}
}

// Redelivery returns msg as the queue delivers it again (after its
// visibility timeout, or after a failure): same id and body, the receive
// count one higher and a new receipt handle.
func Redelivery(msg events.SQSMessage) events.SQSMessage {
	n := ReceiveCount(msg) + 1
	out := clone(msg)
	out.Attributes["ApproximateReceiveCount"] = strconv.Itoa(n)
	out.ReceiptHandle = fmt.Sprintf("%s#%d", msg.MessageId, n)
	return out
}

// Duplicate returns the copy of msg a standard queue may deliver
// besides msg itself: the same message id and body, with a receipt handle
// of its own.
func Duplicate(msg events.SQSMessage) events.SQSMessage {
	out := clone(msg)
	out.ReceiptHandle = msg.ReceiptHandle + "+dup"
	return out
}

// Resend returns the message a producer sends when it re-sends msg's
// request: the same body under a new message id, delivered for the first
// time. A key taken from the message id cannot tell it from a new request.
func Resend(msg events.SQSMessage, newID string) events.SQSMessage {
	out := Message(newID, msg.Body)
	out.MessageAttributes = msg.MessageAttributes
	out.EventSourceARN = msg.EventSourceARN
	if g, ok := msg.Attributes[groupAttribute]; ok {
		out.Attributes[groupAttribute] = g
	}
	return out
}

// ReceiveCount returns the message's ApproximateReceiveCount, 1 when it is
// absent or malformed.
func ReceiveCount(msg events.SQSMessage) int {
	n, err := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func clone(msg events.SQSMessage) events.SQSMessage {
	out := msg
	out.Attributes = make(map[string]string, len(msg.Attributes)+1)
	for k, v := range msg.Attributes {
		out.Attributes[k] = v
	}
	return out
}
