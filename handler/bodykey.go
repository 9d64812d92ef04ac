package handler

import "github.com/aws/aws-lambda-go/events"

// FieldKey returns the key, within the namespace, that a handler made with
// WithKeyField(field) (DefaultKeyField when field is "") reads from a
// message body (text), with the handler's own rules and errors: idem.ErrNoKey
// when the field is absent, null or empty, ErrBadKey when it holds no
// usable key, ErrBadBody when the body is not a JSON object. The record's
// key is idem.ClientKey(namespace, it). A producer checks with it that a
// body carries the key it means to send (package producer does).
func FieldKey(text, field string) (string, error) {
	if field == "" {
		field = DefaultKeyField
	}
	return fieldKey(field)(&body{msg: &events.SQSMessage{Body: text}})
}

// FieldsKey returns the key, within the namespace, that a handler made
// with WithKeyFields(fields...) reads from a message body (see FieldKey).
func FieldsKey(text string, fields ...string) (string, error) {
	return fieldsKey(fields)(&body{msg: &events.SQSMessage{Body: text}})
}
