package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// ID is who one request is, read from its message by a Reader.
type ID struct {
	// Key is the key its record is kept under: the namespace, the scope
	// if any, and Value (idem.ClientKey, or idem.ScopedKey with a scope).
	// Empty when the Identity has no namespace (a producer's, which needs
	// none).
	Key idem.Key
	// Value is the key within the namespace, as the message holds it (or
	// as its key fields make it).
	Value string
	// Scope is the scope of the caller the request was made for, from the
	// message attribute ScopeAttribute; "" for none.
	Scope string
	// Fingerprint identifies the payload checked against the stored
	// record; "" for no check.
	Fingerprint string
}

// Reader reads the identity of messages by one Identity, checked once.
// It is safe for concurrent use.
type Reader struct {
	id  Identity
	key func(m *message) (string, error)
	fp  func(m *message) (string, error)
}

// NewReader checks id (Identity.Validate) and returns its Reader, or the
// *idem.ConfigError of every setting that cannot work.
func NewReader(id Identity) (*Reader, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	r := &Reader{id: id}
	switch {
	case len(id.KeyFields) > 0:
		r.key = fieldsKey(id.KeyFields)
	case id.KeyAttribute != "":
		r.key = attributeKey(id.KeyAttribute)
	case id.KeyFunc != nil:
		r.key = funcKey(id.KeyFunc)
	default:
		r.key = fieldKey(id.Defaulted().KeyField)
	}
	switch {
	case id.NoFingerprint:
		r.fp = noFingerprint
	case len(id.FingerprintFields) > 0:
		r.fp = fieldsFingerprint(id.FingerprintFields)
	case len(id.KeyFields) > 0:
		r.fp = noFingerprint // the key is the payload's own fields
	default:
		r.fp = bodyFingerprint
	}
	return r, nil
}

// Identity returns the Identity r reads by.
func (r *Reader) Identity() Identity { return r.id }

// Read reads msg's identity: its key and its fingerprint. A message
// without a key is idem.ErrNoKey; a key the key rule refuses, idem.ErrBadKey;
// a body the key or the fingerprint cannot be read from, ErrBadBody; a
// KeyFunc's panic, ErrKeyFuncPanic; a KeyFunc's error, as it returned it.
// The body is decoded at most once.
func (r *Reader) Read(msg events.SQSMessage) (ID, error) {
	m := message{msg: &msg}
	id, err := r.readKey(&m)
	if err != nil {
		return ID{}, err
	}
	if id.Fingerprint, err = r.fp(&m); err != nil {
		return ID{}, err
	}
	return id, nil
}

// ReadKey is Read without the fingerprint: for a part that names a
// request but checks no payload (a dispatcher).
func (r *Reader) ReadKey(msg events.SQSMessage) (ID, error) {
	m := message{msg: &msg}
	return r.readKey(&m)
}

// readKey reads the value and the scope, and makes the key.
func (r *Reader) readKey(m *message) (ID, error) {
	value, err := r.key(m)
	if err != nil {
		return ID{}, err
	}
	if err := idem.CheckValue(value); err != nil {
		return ID{}, fmt.Errorf("%s: %w", r.id.Source(), err)
	}
	scope, err := readScope(m.msg)
	if err != nil {
		return ID{}, err
	}
	return r.ID(value, scope)
}

// ID is the identity of the request whose key within the namespace is
// value, made within scope ("" for none): what Read returns for a message
// holding them, without its fingerprint. It is how a part that is given a
// key (the command, by an operator) finds the record a message with it
// has.
func (r *Reader) ID(value, scope string) (ID, error) {
	id := ID{Value: value, Scope: scope}
	if err := idem.CheckValue(value); err != nil {
		return ID{}, err
	}
	if r.id.Namespace == "" {
		if scope != "" {
			if err := idem.CheckValue(scope); err != nil {
				return ID{}, fmt.Errorf("scope: %w", err)
			}
		}
		return id, nil
	}
	var err error
	if scope == "" {
		id.Key, err = idem.ClientKey(r.id.Namespace, value)
	} else {
		id.Key, err = idem.ScopedKey(r.id.Namespace, scope, value)
	}
	if err != nil {
		return ID{}, err
	}
	return id, nil
}

// readScope reads the message attribute ScopeAttribute: "" when absent.
func readScope(msg *events.SQSMessage) (string, error) {
	a, ok := msg.MessageAttributes[ScopeAttribute]
	if !ok {
		return "", nil
	}
	if a.DataType != "String" || a.StringValue == nil {
		return "", fmt.Errorf("%w: message attribute %s is of type %s, not String", idem.ErrBadKey, ScopeAttribute, a.DataType)
	}
	if err := idem.CheckValue(*a.StringValue); err != nil {
		if !errors.Is(err, idem.ErrBadKey) { // empty: a scope that is set but empty is not the absence of a key
			err = fmt.Errorf("%w: %w", idem.ErrBadKey, err)
		}
		return "", fmt.Errorf("message attribute %s: %w", ScopeAttribute, err)
	}
	return *a.StringValue, nil
}

// message is a message whose body is decoded at most once, for the key
// and a fields fingerprint alike. The whole-body fingerprint canonicalizes
// the raw body itself, so that its value never depends on this decode.
type message struct {
	msg    *events.SQSMessage
	obj    idemjson.Object
	err    error
	parsed bool
}

// object decodes the body as a JSON object, once.
func (m *message) object() (idemjson.Object, error) {
	if !m.parsed {
		m.parsed = true
		if m.obj, m.err = idemjson.Parse(m.msg.Body); m.err != nil {
			m.err = fmt.Errorf("%w: %w", ErrBadBody, m.err)
		}
	}
	return m.obj, m.err
}

// unambiguous refuses a body in which fields read differently to
// idemjson and to encoding/json (a member name twice, or in two cases,
// along a field's path): a worker decoding the body would see another
// request than its key names.
func (m *message) unambiguous(sentinel error, fields ...string) error {
	if err := idemjson.CheckUnambiguous(m.msg.Body, fields...); err != nil {
		return fmt.Errorf("%w: %w", sentinel, err)
	}
	return nil
}

// fieldKey reads the key from a member of the JSON body.
func fieldKey(field string) func(m *message) (string, error) {
	return func(m *message) (string, error) {
		obj, err := m.object()
		if err != nil {
			return "", err
		}
		if err := m.unambiguous(idem.ErrBadKey, field); err != nil {
			return "", err
		}
		v, _ := obj.Field(field)
		switch v := v.(type) {
		case nil:
			// A dot separates names: a member named "request.id" is not
			// the field request.id. Say so rather than run keyless.
			if lit := idemjson.EscapeField(field); lit != field {
				if _, ok := obj.Field(lit); ok {
					return "", fmt.Errorf("%w: body field %q is absent or null; a dot separates names (write %q for the member named %q)", idem.ErrBadKey, field, lit, field)
				}
			}
			return "", fmt.Errorf("%w: body field %q is absent or null", idem.ErrNoKey, field)
		case string:
			if v == "" {
				return "", fmt.Errorf("%w: body field %q is empty", idem.ErrNoKey, field)
			}
			return v, nil
		case json.Number:
			return v.String(), nil
		default:
			return "", fmt.Errorf("%w: body field %q is %s", idem.ErrBadKey, field, idemjson.Kind(v))
		}
	}
}

// fieldsKey reads a natural key from members of the JSON body.
func fieldsKey(fields []string) func(m *message) (string, error) {
	return func(m *message) (string, error) {
		obj, err := m.object()
		if err != nil {
			return "", err
		}
		if err := m.unambiguous(idem.ErrBadKey, fields...); err != nil {
			return "", err
		}
		return obj.NaturalValue(fields...)
	}
}

// attributeKey reads the key from a String or Number message attribute.
func attributeKey(name string) func(m *message) (string, error) {
	return func(m *message) (string, error) {
		a, ok := m.msg.MessageAttributes[name]
		if !ok || a.StringValue == nil {
			return "", fmt.Errorf("%w: message attribute %q is absent", idem.ErrNoKey, name)
		}
		if !strings.HasPrefix(a.DataType, "String") && !strings.HasPrefix(a.DataType, "Number") {
			return "", fmt.Errorf("%w: message attribute %q is of type %s", idem.ErrBadKey, name, a.DataType)
		}
		if *a.StringValue == "" {
			return "", fmt.Errorf("%w: message attribute %q is empty", idem.ErrNoKey, name)
		}
		return *a.StringValue, nil
	}
}

// funcKey adapts a KeyFunc, recovering its panics.
func funcKey(f keyFunc) func(m *message) (string, error) {
	return func(m *message) (k string, err error) {
		defer func() {
			if p := recover(); p != nil {
				k, err = "", fmt.Errorf("%w: %v", ErrKeyFuncPanic, p)
			}
		}()
		k, err = f(*m.msg)
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
func bodyFingerprint(m *message) (string, error) {
	if fp, err := idemjson.Fingerprint([]byte(m.msg.Body)); err == nil {
		return fp, nil
	}
	return idem.Fingerprint([]byte(m.msg.Body)), nil
}

// fieldsFingerprint covers the named fields of the JSON body.
func fieldsFingerprint(fields []string) func(m *message) (string, error) {
	return func(m *message) (string, error) {
		obj, err := m.object()
		if err != nil {
			return "", fmt.Errorf("fingerprint: %w", err)
		}
		if err := m.unambiguous(ErrBadBody, fields...); err != nil {
			return "", fmt.Errorf("fingerprint: %w", err)
		}
		fp, err := obj.Hash(fields...)
		if err != nil {
			return "", fmt.Errorf("%w: fingerprint: %w", ErrBadBody, err)
		}
		return fp, nil
	}
}

func noFingerprint(*message) (string, error) { return "", nil }
