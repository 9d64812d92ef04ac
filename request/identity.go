package request

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// DefaultKeyField is the JSON body member that holds a request's key when
// an Identity names no other source.
const DefaultKeyField = "idempotency_key"

// ScopeAttribute is the message attribute that carries the scope of a
// request made within one (a front door's caller): its key is then
// idem.ScopedKey(namespace, scope, value), which no unscoped request can
// reach. Only a part that knows the caller (the front door) sets it.
const ScopeAttribute = "idemq-scope"

// Identity says who a request is, for every part of idemq at once: the
// producer that sends it, the handler and the consumer that claim it, the
// front door that accepts it and reads its result, the dispatcher that
// names its execution and the command that inspects it. Build it once and
// pass it whole to each (handler.WithRequest, producer.WithRequest, …);
// no part makes a key by rules of its own.
//
// A request's key is its namespace, its caller's scope when it has one
// (ScopeAttribute), and its value, read from one source: KeyField,
// KeyFields, KeyAttribute or KeyFunc, at most one set. With none set the
// value is the body member DefaultKeyField. Every value obeys the key rule
// (idem.CheckValue). The zero Identity is valid: the key is the body's
// "idempotency_key", the fingerprint the whole body, and the namespace
// whatever the part defaults it to (the handler: the function's name).
type Identity struct {
	// Namespace is what every key starts with, so that functions sharing
	// a table never share a key. Keep it stable: a new namespace makes
	// every earlier record unreachable. Defaults to "": each part says
	// what it takes then (the handler and the dispatcher: the Lambda
	// function's name; the front door and the command require it).
	Namespace string

	// KeyField is a member of the JSON body that holds the key: a name,
	// or a dotted path into nested objects ("request.id"; a dot or a
	// backslash in a name is escaped with a backslash, see
	// idemjson.CheckField). Its value is a string or a number. Defaults
	// to DefaultKeyField when no other source is set.
	KeyField string
	// KeyFields are members of the JSON body that together make the key,
	// a natural key ("document_id:4471:version:9", see
	// idemjson.Object.NaturalValue): the body names the request in the
	// business's own terms, and nothing is put in it. Defaults to none.
	KeyFields []string
	// KeyAttribute is a String or Number message attribute that holds the
	// key. Defaults to none.
	KeyAttribute string
	// KeyFunc returns the key of a message, within the namespace.
	// Returning "" or an error wrapping idem.ErrNoKey says the message
	// has no key; any other error is the message's (the handler fails the
	// record). Never use the message id: a producer's re-send and a
	// redrive from the dead-letter queue carry new ones. For a key of
	// several parts, idem.NaturalValue escapes and joins them. A part that
	// cannot run it where it needs the key refuses the Identity. Defaults
	// to none.
	KeyFunc func(msg events.SQSMessage) (string, error)

	// FingerprintFields are the JSON body fields checked against the
	// stored record, so that fields that change between re-sends (a
	// trace id, a timestamp) do not count. Defaults to the whole body, in
	// canonical JSON form (idemjson.Fingerprint) when it has one, else its
	// bytes; with KeyFields, to no check (the key is the payload's own
	// fields).
	FingerprintFields []string
	// NoFingerprint turns the payload check off: a key reused for another
	// payload replays the first payload's result. It cannot be set with
	// FingerprintFields. Defaults to false.
	NoFingerprint bool
}

// keyFunc is the type of Identity.KeyFunc.
type keyFunc = func(msg events.SQSMessage) (string, error)

// Clone returns id with slices of its own, so that a caller changing the
// KeyFields or FingerprintFields it passed does not change id's.
func (id Identity) Clone() Identity {
	id.KeyFields = slices.Clone(id.KeyFields)
	id.FingerprintFields = slices.Clone(id.FingerprintFields)
	return id
}

// configError is an *idem.ConfigError of this package, for the field of
// Identity named.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "request", Field: field, Value: value, Err: err}
}

// Validate reports every setting of id that cannot work, joined, each an
// *idem.ConfigError naming its field; nil when id is valid.
func (id Identity) Validate() error {
	var errs []error
	bad := func(field, value string, err error) { errs = append(errs, configError(field, value, err)) }
	if id.Namespace != "" {
		if err := idem.CheckValue(id.Namespace); err != nil {
			bad("Namespace", fmt.Sprintf("%q", id.Namespace), err)
		}
	}
	first := ""
	for _, s := range []struct {
		field string
		set   bool
	}{
		{"KeyField", id.KeyField != ""},
		{"KeyFields", len(id.KeyFields) > 0},
		{"KeyAttribute", id.KeyAttribute != ""},
		{"KeyFunc", id.KeyFunc != nil},
	} {
		switch {
		case !s.set:
		case first != "":
			bad(s.field, "", fmt.Errorf("is set with %s: a key has one source", first))
		default:
			first = s.field
		}
	}
	if id.KeyField != "" {
		if err := idemjson.CheckField(id.KeyField); err != nil {
			bad("KeyField", fmt.Sprintf("%q", id.KeyField), err)
		}
	}
	for _, f := range id.KeyFields {
		if err := idemjson.CheckField(f); err != nil {
			bad("KeyFields", fmt.Sprintf("%q", f), err)
		}
	}
	if id.KeyAttribute != "" && !validAttributeName(id.KeyAttribute) {
		bad("KeyAttribute", fmt.Sprintf("%q", id.KeyAttribute), errors.New("is not a message attribute name: 1 to 256 letters, digits, '-', '_' and '.', not starting with AWS., Amazon. or a '.'"))
	}
	if id.KeyAttribute == ScopeAttribute {
		bad("KeyAttribute", fmt.Sprintf("%q", id.KeyAttribute), errors.New("is the scope's attribute (ScopeAttribute)"))
	}
	for _, f := range id.FingerprintFields {
		if err := idemjson.CheckField(f); err != nil {
			bad("FingerprintFields", fmt.Sprintf("%q", f), err)
		}
	}
	if id.NoFingerprint && len(id.FingerprintFields) > 0 {
		bad("NoFingerprint", "true", errors.New("is set with FingerprintFields: the payload is checked or not"))
	}
	return errors.Join(errs...)
}

// validAttributeName reports whether SQS takes name as a message
// attribute's name.
func validAttributeName(name string) bool {
	if name == "" || len(name) > 256 || name[0] == '.' || name[len(name)-1] == '.' {
		return false
	}
	for _, prefix := range []string{"AWS.", "Amazon."} {
		if len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) {
			return false
		}
	}
	prevDot := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if prevDot {
				return false
			}
			prevDot = true
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
		prevDot = false
	}
	return true
}
