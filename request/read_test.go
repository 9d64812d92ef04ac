package request_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

func attr(v string) events.SQSMessageAttribute {
	return events.SQSMessageAttribute{DataType: "String", StringValue: &v}
}

func reader(t *testing.T, id request.Identity) *request.Reader {
	t.Helper()
	r, err := request.NewReader(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReadKeys(t *testing.T) {
	t.Parallel()
	scoped := map[string]events.SQSMessageAttribute{request.ScopeAttribute: attr("acme")}
	tests := []struct {
		name string
		id   request.Identity
		msg  events.SQSMessage
		want idem.Key
	}{
		{"default field", request.Identity{Namespace: "ns"}, events.SQSMessage{Body: `{"idempotency_key":"req-42"}`}, "ns#req-42"},
		{"a number", request.Identity{Namespace: "ns"}, events.SQSMessage{Body: `{"idempotency_key":42}`}, "ns#42"},
		{"dotted field", request.Identity{Namespace: "ns", KeyField: "req.id"}, events.SQSMessage{Body: `{"req":{"id":"x"}}`}, "ns#x"},
		{"fields", request.Identity{Namespace: "ns", KeyFields: []string{"version", "document_id"}}, events.SQSMessage{Body: `{"document_id":"doc-1","version":1}`}, "ns#document_id:doc-1:version:1"},
		{"attribute", request.Identity{Namespace: "ns", KeyAttribute: "k"}, events.SQSMessage{Body: "not json", MessageAttributes: map[string]events.SQSMessageAttribute{"k": attr("req-42")}}, "ns#req-42"},
		{"func", request.Identity{Namespace: "ns", KeyFunc: func(m events.SQSMessage) (string, error) { return strings.ToUpper(m.Body), nil }}, events.SQSMessage{Body: "abc"}, "ns#ABC"},
		{"scoped", request.Identity{Namespace: "ns"}, events.SQSMessage{Body: `{"idempotency_key":"k"}`, MessageAttributes: scoped}, "ns:acme#k"},
		{"scoped fields", request.Identity{Namespace: "ns", KeyFields: []string{"a"}}, events.SQSMessage{Body: `{"a":"x"}`, MessageAttributes: scoped}, "ns:acme#a:x"},
		{"no namespace", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"k"}`}, ""},
	}
	for _, tt := range tests {
		got, err := reader(t, tt.id).Read(tt.msg)
		if err != nil || got.Key != tt.want {
			t.Errorf("%s: Read = %+v, %v; want key %q", tt.name, got, err, tt.want)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   request.Identity
		msg  events.SQSMessage
		want error
	}{
		{"absent", request.Identity{}, events.SQSMessage{Body: `{}`}, idem.ErrNoKey},
		{"null", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":null}`}, idem.ErrNoKey},
		{"empty", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":""}`}, idem.ErrNoKey},
		{"an object", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":{}}`}, idem.ErrBadKey},
		{"a control character", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"a\u001b[2Jb"}`}, idem.ErrBadKey},
		{"a lone surrogate", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"\ud800"}`}, idem.ErrBadKey},
		{"too long", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"` + strings.Repeat("x", idem.MaxValueBytes+1) + `"}`}, idem.ErrBadKey},
		{"not JSON", request.Identity{}, events.SQSMessage{Body: `nope`}, request.ErrBadBody},
		{"a name twice", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"a","idempotency_key":"b"}`}, idem.ErrBadKey},
		{"a case variant", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"a","IDEMPOTENCY_KEY":"b"}`}, idem.ErrBadKey},
		{"a case variant of a key field", request.Identity{KeyFields: []string{"doc.id", "v"}}, events.SQSMessage{Body: `{"doc":{"id":"a","Id":"b"},"v":1}`}, idem.ErrBadKey},
		{"a case variant of a fingerprint field", request.Identity{FingerprintFields: []string{"prompt"}}, events.SQSMessage{Body: `{"idempotency_key":"k","prompt":"a","Prompt":"b"}`}, request.ErrBadBody},
		{"a dotted member", request.Identity{KeyField: "a.b"}, events.SQSMessage{Body: `{"a.b":"x"}`}, idem.ErrBadKey},
		{"a bad scope", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"k"}`, MessageAttributes: map[string]events.SQSMessageAttribute{request.ScopeAttribute: attr("a\nb")}}, idem.ErrBadKey},
		{"a binary scope", request.Identity{}, events.SQSMessage{Body: `{"idempotency_key":"k"}`, MessageAttributes: map[string]events.SQSMessageAttribute{request.ScopeAttribute: {DataType: "Binary", BinaryValue: []byte("a")}}}, idem.ErrBadKey},
		{"a binary attribute", request.Identity{KeyAttribute: "k"}, events.SQSMessage{MessageAttributes: map[string]events.SQSMessageAttribute{"k": {DataType: "Binary", StringValue: new(string)}}}, idem.ErrBadKey},
		{"a panic", request.Identity{KeyFunc: func(events.SQSMessage) (string, error) { panic("boom") }}, events.SQSMessage{}, request.ErrKeyFuncPanic},
		{"a fingerprint field absent", request.Identity{FingerprintFields: []string{"x"}}, events.SQSMessage{Body: `{"idempotency_key":"k"}`}, request.ErrBadBody},
	}
	for _, tt := range tests {
		if got, err := reader(t, tt.id).Read(tt.msg); !errors.Is(err, tt.want) {
			t.Errorf("%s: Read = %+v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestFingerprints(t *testing.T) {
	t.Parallel()
	read := func(id request.Identity, body string) string {
		got, err := reader(t, id).Read(events.SQSMessage{Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return got.Fingerprint
	}
	whole := request.Identity{}
	if a, b := read(whole, `{"idempotency_key":"k","a":1,"b":2}`), read(whole, `{ "b":2.0, "a":1, "idempotency_key":"k" }`); a == "" || a != b {
		t.Errorf("the whole body's fingerprint depends on its spelling: %q, %q", a, b)
	}
	if a, b := read(whole, `{"idempotency_key":"k","a":1}`), read(whole, `{"idempotency_key":"k","a":2}`); a == b {
		t.Error("two payloads share a fingerprint")
	}
	fields := request.Identity{FingerprintFields: []string{"a"}}
	if a, b := read(fields, `{"idempotency_key":"k","a":1,"trace":"x"}`), read(fields, `{"idempotency_key":"k","a":1,"trace":"y"}`); a == "" || a != b {
		t.Errorf("a field outside FingerprintFields counts: %q, %q", a, b)
	}
	if got := read(request.Identity{KeyFields: []string{"a"}}, `{"a":1,"b":2}`); got != "" {
		t.Errorf("KeyFields without FingerprintFields: fingerprint %q, want none", got)
	}
	if got := read(request.Identity{NoFingerprint: true}, `{"idempotency_key":"k"}`); got != "" {
		t.Errorf("NoFingerprint: fingerprint %q, want none", got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	f := func(events.SQSMessage) (string, error) { return "", nil }
	tests := []struct {
		id    request.Identity
		field string
	}{
		{request.Identity{KeyField: "a", KeyAttribute: "b"}, "KeyAttribute"},
		{request.Identity{KeyFields: []string{"a"}, KeyFunc: f}, "KeyFunc"},
		{request.Identity{KeyField: "a..b"}, "KeyField"},
		{request.Identity{KeyFields: []string{""}}, "KeyFields"},
		{request.Identity{KeyAttribute: "AWS.x"}, "KeyAttribute"},
		{request.Identity{KeyAttribute: request.ScopeAttribute}, "KeyAttribute"},
		{request.Identity{FingerprintFields: []string{"a."}}, "FingerprintFields"},
		{request.Identity{NoFingerprint: true, FingerprintFields: []string{"a"}}, "NoFingerprint"},
		{request.Identity{Namespace: "a\nb"}, "Namespace"},
	}
	for _, tt := range tests {
		err := tt.id.Validate()
		ce, ok := errors.AsType[*idem.ConfigError](err)
		if !ok || ce.Field != tt.field || ce.Package != "request" {
			t.Errorf("%+v: Validate = %v; want a ConfigError naming %s", tt.id, err, tt.field)
		}
	}
	// Every bad setting, not the first.
	err := request.Identity{KeyField: "a..b", NoFingerprint: true, FingerprintFields: []string{"x"}}.Validate()
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if ce, ok := errors.AsType[*idem.ConfigError](e); ok {
			fields = append(fields, ce.Field)
		}
	}
	if strings.Join(fields, ",") != "KeyField,NoFingerprint" {
		t.Errorf("Validate named %v, want KeyField and NoFingerprint", fields)
	}
	if err := (request.Identity{}).Validate(); err != nil {
		t.Errorf("the zero Identity: %v", err)
	}
}
