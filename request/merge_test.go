package request_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	keyFunc := func(events.SQSMessage) (string, error) { return "k", nil }
	for _, tc := range []struct {
		name        string
		id, other   request.Identity
		want        request.Identity
		wrongFields []string // id's fields the contradiction names
	}{
		{"the settings' namespace, the type's key",
			request.Identity{Namespace: "ns"}, request.Identity{KeyFields: []string{"a", "b"}},
			request.Identity{Namespace: "ns", KeyFields: []string{"a", "b"}}, nil},
		{"the same key fields in another order",
			request.Identity{KeyFields: []string{"b", "a", "a"}}, request.Identity{KeyFields: []string{"a", "b"}},
			request.Identity{KeyFields: []string{"b", "a", "a"}}, nil},
		{"a key attribute for a type without key fields",
			request.Identity{KeyAttribute: "k"}, request.Identity{FingerprintFields: []string{"p"}},
			request.Identity{KeyAttribute: "k", FingerprintFields: []string{"p"}}, nil},
		{"no fingerprint where the type says none",
			request.Identity{NoFingerprint: true}, request.Identity{KeyField: "id"},
			request.Identity{KeyField: "id", NoFingerprint: true}, nil},
		{"another key field", request.Identity{KeyField: "x"}, request.Identity{KeyField: "id"}, request.Identity{}, []string{"KeyField"}},
		{"a field against fields", request.Identity{KeyField: "a"}, request.Identity{KeyFields: []string{"a", "b"}}, request.Identity{}, []string{"KeyField"}},
		{"an attribute against a field", request.Identity{KeyAttribute: "k"}, request.Identity{KeyField: "id"}, request.Identity{}, []string{"KeyAttribute"}},
		{"two key funcs", request.Identity{KeyFunc: keyFunc}, request.Identity{KeyFunc: keyFunc}, request.Identity{}, []string{"KeyFunc"}},
		{"no fingerprint against fields", request.Identity{NoFingerprint: true}, request.Identity{FingerprintFields: []string{"p"}}, request.Identity{}, []string{"NoFingerprint"}},
		{"other fingerprint fields", request.Identity{FingerprintFields: []string{"q"}}, request.Identity{FingerprintFields: []string{"p"}}, request.Identity{}, []string{"FingerprintFields"}},
		{"two namespaces and two keys", request.Identity{Namespace: "a", KeyField: "x"}, request.Identity{Namespace: "b", KeyField: "y"}, request.Identity{}, []string{"Namespace", "KeyField"}},
	} {
		got, err := tc.id.Merge(tc.other)
		if tc.wrongFields == nil {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
			}
			continue
		}
		var fields []string
		for _, e := range leaves(err) {
			if bad, ok := errors.AsType[*idem.ConfigError](e); ok {
				fields = append(fields, bad.Field)
			}
		}
		if !reflect.DeepEqual(fields, tc.wrongFields) {
			t.Errorf("%s: %v: fields %q, want %q", tc.name, err, fields, tc.wrongFields)
		}
	}
}

func TestSameAs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		id, other request.Identity
		same      bool
	}{
		{"the default key field, named or not", request.Identity{Namespace: "ns"}, request.Identity{KeyField: request.DefaultKeyField, Namespace: "ns"}, true},
		{"another namespace", request.Identity{Namespace: "a"}, request.Identity{Namespace: "b"}, false},
		{"a namespace and none", request.Identity{Namespace: "a"}, request.Identity{}, false},
		{"fingerprint fields in another order", request.Identity{FingerprintFields: []string{"a", "b"}}, request.Identity{FingerprintFields: []string{"b", "a"}}, true},
		{"no fingerprint, or key fields without fingerprint fields", request.Identity{KeyFields: []string{"a"}}, request.Identity{KeyFields: []string{"a"}, NoFingerprint: true}, true},
		{"one key func", request.Identity{KeyFunc: groupKey}, request.Identity{KeyFunc: groupKey}, true},
		{"two key funcs", request.Identity{KeyFunc: groupKey}, request.Identity{KeyFunc: otherKey}, false},
		{"key fields in another order", request.Identity{KeyFields: []string{"a", "b"}}, request.Identity{KeyFields: []string{"b", "a"}, NoFingerprint: true}, true},
		{"another key field", request.Identity{}, request.Identity{KeyField: "id"}, false},
		{"another fingerprint", request.Identity{KeyField: "id"}, request.Identity{KeyField: "id", FingerprintFields: []string{"p"}}, false},
		{"a key func and a field", request.Identity{KeyFunc: groupKey}, request.Identity{}, false},
	} {
		err := tc.id.SameAs(tc.other)
		if (err == nil) != tc.same {
			t.Errorf("%s: %v, want same %v", tc.name, err, tc.same)
		}
		if _, ok := errors.AsType[*idem.ConfigError](err); err != nil && !ok {
			t.Errorf("%s: %v is no ConfigError", tc.name, err)
		}
	}
}

func groupKey(msg events.SQSMessage) (string, error) { return msg.Attributes["MessageGroupId"], nil }
func otherKey(msg events.SQSMessage) (string, error) { return msg.MessageId, nil }

// The one default rule: no key source is the body field DefaultKeyField;
// any source set is kept.
func TestDefaulted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   request.Identity
		want request.Identity
	}{
		{request.Identity{}, request.Identity{KeyField: request.DefaultKeyField}},
		{request.Identity{Namespace: "n", FingerprintFields: []string{"p"}}, request.Identity{Namespace: "n", KeyField: request.DefaultKeyField, FingerprintFields: []string{"p"}}},
		{request.Identity{KeyField: "id"}, request.Identity{KeyField: "id"}},
		{request.Identity{KeyFields: []string{"a"}}, request.Identity{KeyFields: []string{"a"}}},
		{request.Identity{KeyAttribute: "k"}, request.Identity{KeyAttribute: "k"}},
	} {
		if got := tc.id.Defaulted(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v.Defaulted() = %+v, want %+v", tc.id, got, tc.want)
		}
	}
	if got := (request.Identity{KeyFunc: groupKey}).Defaulted(); got.KeyField != "" {
		t.Errorf("a key func's Identity defaulted to the key field %q", got.KeyField)
	}
}
