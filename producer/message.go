package producer

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// Message is one request to send: its key and its body.
type Message struct {
	// Key is the request's idempotency key, within the handler's
	// namespace: the handler's record key is idem.ClientKey(namespace,
	// Key). The producer puts it in the body at Config.KeyField; it may be
	// empty when the body already holds it there. With Config.KeyFields
	// the key is built from the body, and Key, if given, must equal it.
	// Make it where the work is decided, once, and send every copy of the
	// request with it.
	Key string
	// Body is the message body: a JSON object.
	Body []byte
	// GroupID is the message's MessageGroupId. Defaults to
	// Config.GroupID.
	GroupID string
}

// Sent is what became of one message.
type Sent struct {
	// Key is the message's key, as the handler will read it from the
	// body ("" when none could be read or made).
	Key string
	// MessageID is the id SQS gave the message, from the answer that
	// confirmed it. An attempt whose answer was lost may have put another
	// copy on a standard queue, under another id: the handler runs the
	// work once for both, since they carry one key.
	MessageID string
	// DeduplicationID is the MessageDeduplicationId sent (FIFO queues
	// only): DeduplicationID(Key), the same on every attempt, so the
	// queue drops a re-send within its 5-minute deduplication window.
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
	key, body, groupID, dedupID string
}

// prepare puts the key in the body (or builds it from the body's fields),
// checks the body's size and picks the group and deduplication ids. The
// key is read back from the body sent with the handler's own rules
// (handler.KeyReader), so the producer and the handler
// cannot disagree on it.
func (p *Producer) prepare(m Message) (prepared, error) {
	var pm prepared
	text := string(m.Body)
	var err error
	if len(p.cfg.KeyFields) > 0 {
		pm.key, pm.body, err = p.fieldsKey(text, m.Key)
	} else {
		pm.key, pm.body, err = p.fieldKey(text, m.Key)
	}
	if err != nil {
		return pm, err
	}
	if len(pm.body) > p.cfg.MaxMessageBytes {
		return pm, fmt.Errorf("%w: the body is %d bytes, more than MaxMessageBytes %d", ErrTooLarge, len(pm.body), p.cfg.MaxMessageBytes)
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
		pm.dedupID = DeduplicationID(pm.key)
	}
	return pm, nil
}

// fieldsKey builds the key from the body's key fields.
func (p *Producer) fieldsKey(text, want string) (key, body string, err error) {
	key, err = p.readKey(text)
	if err != nil {
		return "", "", err
	}
	if want != "" && want != key {
		return key, "", fmt.Errorf("%w: %s make key %q, not %q", ErrKeyMismatch, p.cfg.keyName(), key, want)
	}
	return key, text, nil
}

// fieldKey puts want in the body's key field, unless the body holds it
// already.
func (p *Producer) fieldKey(text, want string) (key, body string, err error) {
	have, err := p.readKey(text)
	switch {
	case err == nil && (want == "" || want == have):
		return have, text, nil
	case err == nil:
		return have, "", fmt.Errorf("%w: %s holds %q, not %q", ErrKeyMismatch, p.cfg.keyName(), have, want)
	case !errors.Is(err, idem.ErrNoKey):
		return "", "", err // not a JSON object, or a value that is no key
	case want == "":
		return "", "", err // no key given, none in the body
	case !utf8.ValidString(want):
		return "", "", fmt.Errorf("%w: the key is not UTF-8 text", handler.ErrBadKey)
	}
	body, err = insertKey(text, p.cfg.KeyField, want)
	if err != nil {
		return want, "", fmt.Errorf("%w: cannot put the key in %s: %w", ErrBadMessage, p.cfg.keyName(), err)
	}
	// Fail closed: send only a body the handler reads this key from.
	if got, err := p.readKey(body); err != nil || got != want {
		return want, "", fmt.Errorf("%w: the handler would read %q (%v) from %s, not %q", ErrBadMessage, got, err, p.cfg.keyName(), want)
	}
	return want, body, nil
}

// readKey reads the key from a body as the handler does (handler.KeyReader
// with the producer's key settings).
func (p *Producer) readKey(text string) (string, error) {
	return p.keyOf(events.SQSMessage{Body: text})
}
