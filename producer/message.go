package producer

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Message is one request to send: its key and its body.
type Message struct {
	// Key is the request's idempotency key, within the handler's
	// namespace. The producer puts it where Config.Request reads it (the
	// body member KeyField, or the attribute KeyAttribute); it may be
	// empty when the message holds it already. With KeyFields or KeyFunc
	// the message itself makes the key, and Key, if given, must equal it.
	// Make it where the work is decided, once, and send every copy of the
	// request with it.
	Key string
	// Body is the message body: a JSON object, unless the key is in an
	// attribute or made by a KeyFunc.
	Body []byte
	// Attributes are String message attributes sent with the message.
	// Defaults to none.
	Attributes map[string]string
	// Scope is the scope of the caller the request is made for
	// (request.ScopeAttribute): its key is then apart from every other
	// caller's. Only a part that knows the caller (a front door) sets it.
	// Defaults to none.
	Scope string
	// GroupID is the message's MessageGroupId. Defaults to
	// Config.GroupID.
	GroupID string
}

// Sent is what became of one message.
type Sent struct {
	// Key is the message's key within the namespace, as the handler will
	// read it ("" when none could be read or made).
	Key string
	// RecordKey is the key of the record the handler will claim for the
	// message: namespace, scope and Key. Empty without
	// Config.Request.Namespace.
	RecordKey idem.Key
	// MessageID is the id SQS gave the message, from the answer that
	// confirmed it. An attempt whose answer was lost may have put another
	// copy on a standard queue, under another id: the handler runs the
	// work once for both, since they carry one key.
	MessageID string
	// DeduplicationID is the MessageDeduplicationId sent (FIFO queues
	// only): DeduplicationID of the key (with its scope, when it has
	// one), the same on every attempt, so the queue drops a re-send
	// within its 5-minute deduplication window.
	DeduplicationID string
	// Attempts is how many requests carried the message: more than one
	// when an answer was lost (or SQS failed the entry) and the message
	// was sent again, the same body with the same key. 0 when it was
	// refused before sending.
	Attempts int
	// Err is why the message was not confirmed sent; nil when it was. In
	// SendBatch's results it is a *MessageError.
	Err error
}

// prepared is a message ready to send.
type prepared struct {
	id               request.ID
	body             string
	attributes       map[string]types.MessageAttributeValue
	size             int // what SQS counts against its limit: body and attributes
	groupID, dedupID string
}

// prepare puts the key where the handler reads it (request.Reader.Stamp,
// which reads the message back with the handler's own Reader and fails
// unless it gives this key), checks the message as it will be sent (its
// text as SQS takes it, queue.CheckText, and its size), and picks the
// group and deduplication ids.
func (p *Producer) prepare(m Message) (prepared, error) {
	var pm prepared
	msg := events.SQSMessage{Body: string(m.Body)}
	for name, v := range m.Attributes {
		if msg.MessageAttributes == nil {
			msg.MessageAttributes = map[string]events.SQSMessageAttribute{}
		}
		msg.MessageAttributes[name] = events.SQSMessageAttribute{DataType: "String", StringValue: &v}
	}
	msg, id, err := p.reader.Stamp(msg, m.Key, m.Scope)
	pm.id = id
	if err != nil {
		return pm, err
	}
	pm.body = msg.Body
	pm.size = len(msg.Body)
	if err := queue.CheckText(msg.Body); err != nil {
		return pm, fmt.Errorf("%w: SQS would refuse the body: %w", ErrBadMessage, err)
	}
	for name, a := range msg.MessageAttributes {
		if err := queue.CheckText(aws.ToString(a.StringValue)); err != nil {
			return pm, fmt.Errorf("%w: SQS would refuse the value of message attribute %q: %w", ErrBadMessage, name, err)
		}
		if pm.attributes == nil {
			pm.attributes = map[string]types.MessageAttributeValue{}
		}
		pm.attributes[name] = types.MessageAttributeValue{DataType: aws.String(a.DataType), StringValue: a.StringValue}
		// SQS counts an attribute's name, type and value.
		pm.size += len(name) + len(a.DataType) + len(aws.ToString(a.StringValue))
	}
	if pm.size > p.cfg.MaxMessageBytes {
		return pm, fmt.Errorf("%w: the message is %d bytes (body and attributes), more than MaxMessageBytes %d", ErrTooLarge, pm.size, p.cfg.MaxMessageBytes)
	}
	pm.groupID = m.GroupID
	if pm.groupID == "" {
		pm.groupID = p.cfg.GroupID
	}
	switch {
	case pm.groupID != "" && !validID(pm.groupID):
		return pm, fmt.Errorf("%w: group id %q is not 1 to %d letters, digits and punctuation", ErrBadMessage, pm.groupID, maxIDLen)
	case p.fifo && pm.groupID == "":
		return pm, fmt.Errorf("%w: a FIFO queue needs a message group id (Message.GroupID or Config.GroupID)", ErrBadMessage)
	case p.fifo:
		pm.dedupID = dedupID(id)
	}
	return pm, nil
}

// dedupID is the deduplication id of a request: DeduplicationID of its
// key, or, with a scope, of the scope and the key joined by a control
// character, which no key holds (idem.CheckValue), so a scoped request
// never shares an id with an unscoped one.
func dedupID(id request.ID) string {
	if id.Scope == "" {
		return DeduplicationID(id.Value)
	}
	return DeduplicationID(id.Scope + "\x1f" + id.Value)
}
