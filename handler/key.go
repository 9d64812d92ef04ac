package handler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// keySource returns a message's key within the namespace.
type keySource func(msg *events.SQSMessage) (string, error)

// fingerprinter returns a message's payload fingerprint ("" for none).
type fingerprinter func(msg *events.SQSMessage) (string, error)

// fieldKey reads the key from a member of the JSON body.
func fieldKey(field string) keySource {
	return func(msg *events.SQSMessage) (string, error) {
		doc, err := parseObject(msg.Body)
		if err != nil {
			return "", err
		}
		switch v := lookup(doc, field).(type) {
		case nil:
			return "", fmt.Errorf("%w: body field %q is absent or null", idem.ErrNoKey, field)
		case string:
			if v == "" {
				return "", fmt.Errorf("%w: body field %q is empty", idem.ErrNoKey, field)
			}
			return v, nil
		case json.Number:
			return v.String(), nil
		default:
			return "", fmt.Errorf("%w: body field %q is %s", ErrBadKey, field, jsonKind(v))
		}
	}
}

// attributeKey reads the key from a String or Number message attribute.
func attributeKey(name string) keySource {
	return func(msg *events.SQSMessage) (string, error) {
		a, ok := msg.MessageAttributes[name]
		if !ok || a.StringValue == nil {
			return "", fmt.Errorf("%w: message attribute %q is absent", idem.ErrNoKey, name)
		}
		if !strings.HasPrefix(a.DataType, "String") && !strings.HasPrefix(a.DataType, "Number") {
			return "", fmt.Errorf("%w: message attribute %q is of type %s", ErrBadKey, name, a.DataType)
		}
		if *a.StringValue == "" {
			return "", fmt.Errorf("%w: message attribute %q is empty", idem.ErrNoKey, name)
		}
		return *a.StringValue, nil
	}
}

// funcKey adapts a KeyFunc, recovering its panics.
func funcKey(f KeyFunc) keySource {
	return func(msg *events.SQSMessage) (k string, err error) {
		defer func() {
			if p := recover(); p != nil {
				k, err = "", fmt.Errorf("%w in the key func: %v", ErrPanic, p)
			}
		}()
		k, err = f(*msg)
		if err != nil {
			return "", err
		}
		if k == "" {
			return "", fmt.Errorf("%w: the key func returned an empty key", idem.ErrNoKey)
		}
		return k, nil
	}
}

// bodyFingerprint covers the whole body: its canonical JSON form when it is
// JSON, else its bytes.
func bodyFingerprint(msg *events.SQSMessage) (string, error) {
	if fp, err := idem.JSONFingerprint([]byte(msg.Body)); err == nil {
		return fp, nil
	}
	return idem.Fingerprint([]byte(msg.Body)), nil
}

// fieldsFingerprint covers the named fields of the JSON body.
func fieldsFingerprint(fields []string) fingerprinter {
	return func(msg *events.SQSMessage) (string, error) {
		fp, err := idem.JSONFingerprint([]byte(msg.Body), fields...)
		if err != nil {
			return "", fmt.Errorf("%w: fingerprint: %w", ErrBadBody, err)
		}
		return fp, nil
	}
}

func noFingerprint(*events.SQSMessage) (string, error) { return "", nil }

// parseObject decodes a body that must be one JSON object, keeping numbers
// as they are spelled.
func parseObject(body string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadBody, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrBadBody)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the body is %s", ErrBadBody, jsonKind(doc))
	}
	return obj, nil
}

// lookup follows a member name, or a dotted path through nested objects;
// an exact member name that contains dots wins over the path. It returns
// nil for an absent or null value.
func lookup(v any, path string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if v, ok := obj[path]; ok {
		return v
	}
	head, rest, found := strings.Cut(path, ".")
	if !found {
		return nil
	}
	return lookup(obj[head], rest)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
