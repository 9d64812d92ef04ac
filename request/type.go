package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem/idemjson"
)

// Type is who a request of Go type T is: the Identity its tags say
// (IdentityOf) joined with a part's settings, read by one Reader, and the
// decoding of a body into T and of T into a body. The typed handler, the
// typed producer, the front door's body check and NewFunc each make one. It
// is safe for concurrent use.
type Type[T any] struct {
	reader *Reader
	name   string // T, in errors
	object bool   // T's JSON form is an object: a body must be one
	keyed  bool   // T's JSON form has the members the key is read from
	checks []fieldCheck
}

// fieldCheck is a member a key or a fingerprint is made of that sits in
// a Go field of the request type: Decode checks the field holds what the
// member says.
type fieldCheck struct {
	field  string  // as the Identity names it
	steps  [][]int // index paths to the Go field, one per struct
	typ    reflect.Type
	quoted bool // the json ",string" option
}

// NewType returns the Type of T under id: id merged with T's own
// Identity (id.Merge(IdentityOf[T]())), so that the settings say the
// namespace and add what T's tags leave unset, and a setting that
// contradicts a tag is refused. It returns an *idem.ConfigError for a bad
// tag, a contradiction, or a merged Identity that Validate refuses.
func NewType[T any](id Identity) (*Type[T], error) {
	t := reflect.TypeFor[T]()
	own, err := identityOf(t)
	if err != nil {
		return nil, err
	}
	merged, err := id.Merge(own)
	if err != nil {
		return nil, fmt.Errorf("request type %s: the settings contradict its tags (%s): %w", typeName(t), own.describe(), err)
	}
	r, err := NewReader(merged)
	if err != nil {
		return nil, err
	}
	d := deref(t)
	typ := &Type[T]{reader: r, name: typeName(t), object: !opaque(d) && (d.Kind() == reflect.Struct || d.Kind() == reflect.Map)}
	var fields []string
	switch read := merged.Defaulted(); {
	case read.KeyField != "":
		fields = append(fields, read.KeyField)
	case len(read.KeyFields) > 0:
		fields = append(fields, read.KeyFields...)
	}
	typ.keyed = len(fields) > 0
	for _, f := range fields {
		if _, _, found, _ := fieldOf(t, f); !found {
			typ.keyed = false
		}
	}
	fields = append(fields, merged.FingerprintFields...)
	for _, f := range fields {
		steps, jf, found, dynamic := fieldOf(t, f)
		if found && !dynamic {
			typ.checks = append(typ.checks, fieldCheck{field: f, steps: steps, typ: jf.typ, quoted: jf.quoted})
		}
	}
	return typ, nil
}

// describe says what an Identity from tags sets, for errors.
func (id Identity) describe() string {
	s := "no key"
	if k := id.keySource(); k.field != "" {
		s = k.field + " " + k.value
	}
	if fp := id.fingerprintSource(); fp.field != "" {
		s += ", " + fp.field + " " + fp.value
	}
	return s
}

// Identity returns the merged Identity the Type reads requests by.
func (t *Type[T]) Identity() Identity { return t.reader.Identity() }

// Reader returns the Reader of the Type's Identity.
func (t *Type[T]) Reader() *Reader { return t.reader }

// CarriesKey reports whether T's JSON form has the members the key is
// read from (KeyField, or every one of KeyFields, as a Go field or
// possibly through a map): whether a T encoded by Body holds its own key.
func (t *Type[T]) CarriesKey() bool { return t.keyed }

// Name names T, as errors do: "Summarise".
func (t *Type[T]) Name() string { return t.name }

// Decode decodes body into a T (encoding/json, unknown members ignored).
// A body that is not JSON, not an object where T's JSON form is one, or
// holds a member of another type than T's field is a *DecodeError, which
// is ErrBadBody. So is a body in which a member the key or the
// fingerprint is made of (a member of the Identity's key or fingerprint
// fields that is a field of T) does not decode into T's field as it
// decodes alone: another member has decoded into that field, such as one
// named alike in another case, which encoding/json matches too. The
// function then sees the request the key names, never another.
func (t *Type[T]) Decode(body []byte) (T, error) {
	var v T
	if t.object {
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
			return v, &DecodeError{Type: t.name, Err: errors.New("it is not a JSON object")}
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return v, &DecodeError{Type: t.name, Err: decodeDetail(err)}
	}
	if len(t.checks) == 0 {
		return v, nil
	}
	obj, err := idemjson.Parse(body)
	if err != nil {
		return v, &DecodeError{Type: t.name, Err: err}
	}
	rv := reflect.ValueOf(&v).Elem()
	for _, c := range t.checks {
		raw, ok := obj.Field(c.field)
		if !ok {
			continue // absent or null: the key or the fingerprint is made of nothing there
		}
		if !c.holds(rv, raw) {
			return v, &DecodeError{Type: t.name, Err: fmt.Errorf("member %q does not decode into its field as it decodes alone: another member decoded into that field too (one named alike in another case?); the key or the fingerprint would not name what the request holds", c.field)}
		}
	}
	return v, nil
}

// holds reports whether the Go field c names in v holds what raw, the
// member's value in the body, decodes to alone.
func (c fieldCheck) holds(v reflect.Value, raw any) bool {
	got, ok := valueAt(v, c.steps)
	if !ok {
		return false
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	if c.quoted { // the member holds the field's JSON as a string
		s, isString := raw.(string)
		if !isString {
			return false
		}
		data = []byte(s)
	}
	alone := reflect.New(c.typ)
	if err := json.Unmarshal(data, alone.Interface()); err != nil {
		return false
	}
	return reflect.DeepEqual(alone.Elem().Interface(), got.Interface())
}

// valueAt is the field steps lead to from v, through pointers; ok is
// false when a nil pointer stands in the way.
func valueAt(v reflect.Value, steps [][]int) (reflect.Value, bool) {
	for _, step := range steps {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		var err error
		if v, err = v.FieldByIndexErr(step); err != nil {
			return reflect.Value{}, false
		}
	}
	return v, true
}

// Body encodes v as the body of its request (encoding/json).
func (t *Type[T]) Body(v T) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("request: a %s does not encode as JSON: %w", t.name, err)
	}
	return body, nil
}

// ID returns the identity of the request v: what Reader.Read reads from
// a message whose body is v's JSON form (Body), without a scope.
func (t *Type[T]) ID(v T) (ID, error) {
	body, err := t.Body(v)
	if err != nil {
		return ID{}, err
	}
	return t.reader.Read(events.SQSMessage{Body: string(body)})
}

// DecodeError says why a body is not a request of a type (Type.Decode).
// It is ErrBadBody: errors.Is(err, ErrBadBody) holds.
type DecodeError struct {
	// Type names the request type: "Summarise".
	Type string
	// Err says what does not decode.
	Err error
}

// Error reads "request: body is not a Summarise: ...".
func (e *DecodeError) Error() string {
	return "request: body is not a " + e.Type + ": " + e.Err.Error()
}

// Unwrap returns what does not decode.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is reports whether target is ErrBadBody.
func (e *DecodeError) Is(target error) bool { return target == ErrBadBody }

// decodeDetail says what encoding/json could not decode, in the body's
// terms.
func decodeDetail(err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		where := "the body"
		if te.Field != "" {
			where = fmt.Sprintf("member %q", te.Field)
		}
		kind, _, _ := strings.Cut(te.Value, " ") // "number 300": the kind only, never a payload's value
		return fmt.Errorf("%s: a JSON %s does not decode into %s", where, kind, te.Type)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("not valid JSON at byte %d: %s", se.Offset, se.Error())
	}
	return err
}
