package handler

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// body is a record's message with its body decoded at most once, for the
// key (WithKeyField) and a fields fingerprint (WithFingerprintFields)
// alike. The whole-body fingerprint (the default) canonicalizes the raw
// body itself (idemjson.Fingerprint: RFC 8785 with numbers kept exact,
// duplicate member names refused), so that its value never depends on this
// decode.
type body struct {
	msg    *events.SQSMessage
	obj    idemjson.Object
	err    error
	parsed bool
}

// object decodes the body as a JSON object, once.
func (b *body) object() (idemjson.Object, error) {
	if !b.parsed {
		b.parsed = true
		if b.obj, b.err = idemjson.Parse(b.msg.Body); b.err != nil {
			b.err = fmt.Errorf("%w: %w", ErrBadBody, b.err)
		}
	}
	return b.obj, b.err
}

// keySource returns a message's key within the namespace.
type keySource func(b *body) (string, error)

// fingerprinter returns a message's payload fingerprint ("" for none).
type fingerprinter func(b *body) (string, error)

// fieldKey reads the key from a member of the JSON body.
func fieldKey(field string) keySource {
	return func(b *body) (string, error) {
		obj, err := b.object()
		if err != nil {
			return "", err
		}
		v, _ := obj.Field(field)
		switch v := v.(type) {
		case nil:
			// A dot separates names: a member named "request.id" is not
			// the field request.id. Say so rather than run keyless.
			if lit := idemjson.EscapeField(field); lit != field {
				if _, ok := obj.Field(lit); ok {
					return "", fmt.Errorf("%w: body field %q is absent or null; a dot separates names (write %q for the member named %q)", ErrBadKey, field, lit, field)
				}
			}
			return "", fmt.Errorf("%w: body field %q is absent or null", idem.ErrNoKey, field)
		case string:
			if v == "" {
				return "", fmt.Errorf("%w: body field %q is empty", idem.ErrNoKey, field)
			}
			if !utf8.ValidString(v) {
				// Read as U+FFFD it would share a key with every other.
				return "", fmt.Errorf("%w: body field %q is not Unicode text (a lone surrogate escape)", ErrBadKey, field)
			}
			return v, nil
		case json.Number:
			return v.String(), nil
		default:
			return "", fmt.Errorf("%w: body field %q is %s", ErrBadKey, field, idemjson.Kind(v))
		}
	}
}

// fieldsKey reads a natural key from members of the JSON body.
func fieldsKey(fields []string) keySource {
	return func(b *body) (string, error) {
		obj, err := b.object()
		if err != nil {
			return "", err
		}
		return obj.NaturalValue(fields...)
	}
}

// attributeKey reads the key from a String or Number message attribute.
func attributeKey(name string) keySource {
	return func(b *body) (string, error) {
		a, ok := b.msg.MessageAttributes[name]
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
	return func(b *body) (k string, err error) {
		defer func() {
			if p := recover(); p != nil {
				k, err = "", fmt.Errorf("%w in the key func: %v", ErrPanic, p)
			}
		}()
		k, err = f(*b.msg)
		if err != nil {
			return "", err
		}
		if k == "" {
			return "", fmt.Errorf("%w: the key func returned an empty key", idem.ErrNoKey)
		}
		return k, nil
	}
}

// bodyFingerprint covers the whole body: its canonical JSON form when it
// has one, else its bytes (a body that is not JSON, or holds a string that
// is not Unicode text: its bytes tell it apart from every other).
func bodyFingerprint(b *body) (string, error) {
	if fp, err := idemjson.Fingerprint([]byte(b.msg.Body)); err == nil {
		return fp, nil
	}
	return idem.Fingerprint([]byte(b.msg.Body)), nil
}

// fieldsFingerprint covers the named fields of the JSON body.
func fieldsFingerprint(fields []string) fingerprinter {
	return func(b *body) (string, error) {
		obj, err := b.object()
		if err != nil {
			return "", fmt.Errorf("fingerprint: %w", err)
		}
		fp, err := obj.Hash(fields...)
		if err != nil {
			return "", fmt.Errorf("%w: fingerprint: %w", ErrBadBody, err)
		}
		return fp, nil
	}
}

func noFingerprint(*body) (string, error) { return "", nil }
