package handler

import (
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// KeyReader returns the function a Handler made with c reads each
// message's key with, before its namespace is put in front: the same
// source (KeyField, KeyFields, KeyAttribute or KeyFunc; the body field
// DefaultKeyField when none is set), the same checks and the same errors
// (idem.ErrNoKey for a message without a key, ErrBadKey, ErrBadBody,
// ErrPanic for a KeyFunc's panic). It is for programs that name work by
// the handler's keys without claiming them in a store, such as a
// dispatcher to Lambda durable functions. Only c's key settings are read;
// c is checked whole (Config.Validate), and an *idem.ConfigError naming
// the setting is returned if it cannot be safe.
func KeyReader(c Config) (KeyFunc, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	src, _, _ := c.keySource()
	return func(msg events.SQSMessage) (string, error) {
		b := body{msg: &msg}
		return src(&b)
	}, nil
}

// keySource is where c's keys come from, a name for logs, and whether the
// key is made of body fields (WithKeyFields). Validate has refused a c
// with two sources.
func (c Config) keySource() (src keySource, name string, ofFields bool) {
	switch {
	case len(c.KeyFields) > 0:
		return fieldsKey(c.KeyFields), "body fields " + strings.Join(c.KeyFields, ","), true
	case c.KeyAttribute != "":
		return attributeKey(c.KeyAttribute), "message attribute " + c.KeyAttribute, false
	case c.KeyFunc != nil:
		return funcKey(c.KeyFunc), "key func", false
	default:
		field := c.KeyField
		if field == "" {
			field = DefaultKeyField
		}
		return fieldKey(field), "body field " + field, false
	}
}
