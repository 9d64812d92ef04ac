package request

import (
	"errors"
	"fmt"
	"maps"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// Stamp returns msg ready to be sent as the request whose key within the
// namespace is value, made within scope ("" for none), and the ID the
// handler will read from it. Where the Identity reads the key, Stamp puts
// it: the body member KeyField (a new member goes first in its object,
// every other byte of the body is kept) or the attribute KeyAttribute;
// scope goes in the attribute ScopeAttribute. A message that already
// holds them holds the same or fails with ErrKeyMismatch. With KeyFields
// or KeyFunc the message itself makes the key: value, if given, must be
// the one it makes. An empty value takes the key the message holds; a
// message without one is idem.ErrNoKey. Stamp then reads the message as
// the handler will (Read) and fails unless it gives that key: a message
// is never sent under a key it was not meant for. msg is not changed.
func (r *Reader) Stamp(msg events.SQSMessage, value, scope string) (events.SQSMessage, ID, error) {
	if value != "" {
		if err := idem.CheckValue(value); err != nil {
			return msg, ID{}, err
		}
	}
	msg.MessageAttributes = maps.Clone(msg.MessageAttributes)
	if scope != "" {
		if err := idem.CheckValue(scope); err != nil {
			return msg, ID{}, fmt.Errorf("scope: %w", err)
		}
		if a, ok := msg.MessageAttributes[ScopeAttribute]; ok && (a.StringValue == nil || *a.StringValue != scope) {
			return msg, ID{}, fmt.Errorf("%w: message attribute %s is not the scope %q", ErrKeyMismatch, ScopeAttribute, scope)
		}
		setAttribute(&msg, ScopeAttribute, scope)
	}
	m := message{msg: &msg}
	have, err := r.key(&m)
	switch {
	case err == nil && (value == "" || value == have):
		value = have
	case err == nil:
		return msg, ID{}, fmt.Errorf("%w: %s holds %q, not %q", ErrKeyMismatch, r.id.Source(), have, value)
	case !errors.Is(err, idem.ErrNoKey) || value == "":
		return msg, ID{}, err // no key given and none held, or a message that holds no usable one
	case r.id.KeyAttribute != "":
		setAttribute(&msg, r.id.KeyAttribute, value)
	case len(r.id.KeyFields) > 0 || r.id.KeyFunc != nil:
		return msg, ID{}, err // the message makes the key; it makes none
	default:
		body, err := insertKey(msg.Body, r.id.Defaulted().KeyField, value)
		if err != nil {
			return msg, ID{}, fmt.Errorf("%w: cannot put the key in %s: %w", ErrBadBody, r.id.Source(), err)
		}
		msg.Body = body
	}
	id, err := r.Read(msg)
	switch {
	case err != nil:
		return msg, ID{}, err
	case id.Value != value || id.Scope != scope:
		// Not reached while insertKey and the readers agree: fail closed.
		return msg, ID{}, fmt.Errorf("%w: the message would be read as key %q, scope %q, not %q, %q", ErrKeyMismatch, id.Value, id.Scope, value, scope)
	}
	return msg, id, nil
}

// setAttribute sets a String message attribute of msg, whose attributes
// are its own.
func setAttribute(msg *events.SQSMessage, name, value string) {
	if msg.MessageAttributes == nil {
		msg.MessageAttributes = map[string]events.SQSMessageAttribute{}
	}
	msg.MessageAttributes[name] = events.SQSMessageAttribute{DataType: "String", StringValue: &value}
}
