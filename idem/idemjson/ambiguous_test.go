package idemjson_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem/idemjson"
)

func TestCheckUnambiguous(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		body   string
		fields []string
		want   *idemjson.AmbiguousError // nil: unambiguous
	}{
		{"one member", `{"idempotency_key":"k","prompt":"p"}`, []string{"idempotency_key"}, nil},
		{"absent", `{"prompt":"p"}`, []string{"idempotency_key"}, nil},
		{"upper case beside", `{"idempotency_key":"k","IDEMPOTENCY_KEY":"x"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "idempotency_key", Second: "IDEMPOTENCY_KEY"}},
		{"mixed case before", `{"Idempotency_Key":"x","idempotency_key":"k"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "Idempotency_Key", Second: "idempotency_key"}},
		{"two variants, no exact name", `{"IDEMPOTENCY_KEY":"x","Idempotency_key":"y"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "IDEMPOTENCY_KEY", Second: "Idempotency_key"}},
		{"Kelvin sign", `{"idempotency_key":"k","idempotency_\u212aey":"x"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "idempotency_key", Second: "idempotency_\u212aey"}},
		{"escaped spelling of the same name", `{"idempotency_key":"k","idempotency\u005fkey":"x"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "idempotency_key", Second: "idempotency_key"}},
		{"the same name twice", `{"idempotency_key":"k","idempotency_key":"x"}`, []string{"idempotency_key"},
			&idemjson.AmbiguousError{Field: "idempotency_key", First: "idempotency_key", Second: "idempotency_key"}},
		{"variants of another member", `{"idempotency_key":"k","prompt":"p","PROMPT":"q"}`, []string{"idempotency_key"}, nil},
		{"a longer name", `{"idempotency_key":"k","idempotency_keys":"x"}`, []string{"idempotency_key"}, nil},
		{"nested: variant of the object", `{"document":{"id":1},"Document":{"id":2}}`, []string{"document.id"},
			&idemjson.AmbiguousError{Field: "document.id", First: "document", Second: "Document"}},
		{"nested: variant of the leaf", `{"document":{"id":1,"ID":2}}`, []string{"document.id"},
			&idemjson.AmbiguousError{Field: "document.id", Object: "document", First: "id", Second: "ID"}},
		{"nested: duplicate leaf", `{"a":{"b":{"c":1,"c":2}}}`, []string{"a.b.c"},
			&idemjson.AmbiguousError{Field: "a.b.c", Object: "a.b", First: "c", Second: "c"}},
		{"nested under a variant", `{"A":{"b":1,"B":2}}`, []string{"a.b"},
			&idemjson.AmbiguousError{Field: "a.b", Object: "A", First: "b", Second: "B"}},
		{"escaped dot in a name", `{"order.id":1,"ORDER.ID":2}`, []string{`order\.id`},
			&idemjson.AmbiguousError{Field: `order\.id`, First: "order.id", Second: "ORDER.ID"}},
		{"object named with a dot", `{"x.y":{"z":1,"Z":2}}`, []string{`x\.y.z`},
			&idemjson.AmbiguousError{Field: `x\.y.z`, Object: `x\.y`, First: "z", Second: "Z"}},
		{"nested, unambiguous", `{"document":{"id":1,"name":"n"},"other":{"id":1,"ID":2}}`, []string{"document.id"}, nil},
		{"path through a non-object", `{"document":"d","Document":"e"}`, []string{"document.id"},
			&idemjson.AmbiguousError{Field: "document.id", First: "document", Second: "Document"}},
		{"second field", `{"a":1,"b":2,"B":3}`, []string{"a", "b"},
			&idemjson.AmbiguousError{Field: "b", First: "b", Second: "B"}},
		{"duplicates elsewhere", `{"k":"v","x":1,"x":2,"n":{"k":1,"k":2}}`, []string{"k"}, nil},
	} {
		err := idemjson.CheckUnambiguous(tc.body, tc.fields...)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want nil", tc.name, err)
			}
			continue
		}
		got, ok := errors.AsType[*idemjson.AmbiguousError](err)
		if !ok || !errors.Is(err, idemjson.ErrAmbiguous) || *got != *tc.want {
			t.Errorf("%s: %#v (%v), want %#v", tc.name, got, err, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, strconv.Quote(tc.want.First)) || !strings.Contains(msg, strconv.Quote(tc.want.Field)) ||
			(tc.want.First != tc.want.Second && !strings.Contains(msg, strconv.Quote(tc.want.Second))) {
			t.Errorf("%s: %q does not name both members and the field", tc.name, msg)
		}
	}
}

// What is not one JSON object, or a field that is not well formed, is an
// error that is not ErrAmbiguous.
func TestCheckUnambiguousRefusesWhatIsNotAnObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, field string }{
		{``, "k"}, {`[]`, "k"}, {`"k"`, "k"}, {`{"k":1`, "k"}, {`{"k":1} x`, "k"}, {`{"k":1,}`, "k"},
		{`{"k":{"a":}}`, "k.a"}, {`{"k":1}`, "a..b"}, {`{"k":1}`, ""}, {` null `, "k"},
	} {
		err := idemjson.CheckUnambiguous([]byte(tc.body), tc.field)
		if err == nil || errors.Is(err, idemjson.ErrAmbiguous) {
			t.Errorf("%q, field %q: %v, want an error that is not ErrAmbiguous", tc.body, tc.field, err)
		}
	}
}

// The point of it: what the check passes, encoding/json reads as this
// package does. For each body it refuses, encoding/json reads another
// value than Parse's for the field.
func TestCheckUnambiguousAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	type request struct {
		Key string `json:"idempotency_key"`
	}
	for _, body := range []string{
		`{"idempotency_key":"k","IDEMPOTENCY_KEY":"x"}`,
		`{"idempotency_key":"k","idempotency_\u212aey":"x"}`,
		`{"IDEMPOTENCY_KEY":"x","idempotency_key":"k","Idempotency_Key":"y"}`,
		`{"idempotency_key":"k","prompt":"p","PROMPT":"q"}`,
		`{"idempotency_key":"k"}`,
	} {
		obj, err := idemjson.Parse(body)
		if err != nil {
			t.Fatal(err)
		}
		ours, _ := obj.Field("idempotency_key")
		var theirs request
		if err := json.Unmarshal([]byte(body), &theirs); err != nil {
			t.Fatal(err)
		}
		agree := ours == theirs.Key
		if checked := idemjson.CheckUnambiguous(body, "idempotency_key") == nil; checked && !agree {
			t.Errorf("%s passes, but encoding/json reads %q where Parse reads %q", body, theirs.Key, ours)
		}
	}
}
