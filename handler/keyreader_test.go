package handler_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// KeyReader reads a message's key as a Handler with the same settings
// does: the default field, a named field, named fields, an attribute, a
// func; and fails the same way.
func TestKeyReader(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	msg := events.SQSMessage{
		MessageId: "m1",
		Body:      `{"idempotency_key":"k-1","request":{"id":"r-9"},"doc":"d","v":3}`,
		MessageAttributes: map[string]events.SQSMessageAttribute{
			"key": {DataType: "String", StringValue: str("attr-1")},
		},
	}
	cases := []struct {
		name string
		c    handler.Config
		want string
	}{
		{"default field", handler.Config{}, "k-1"},
		{"dotted field", handler.Config{KeyField: "request.id"}, "r-9"},
		{"fields", handler.Config{KeyFields: []string{"doc", "v"}}, "doc:d:v:3"},
		{"attribute", handler.Config{KeyAttribute: "key"}, "attr-1"},
		{"func", handler.Config{KeyFunc: func(m events.SQSMessage) (string, error) { return "f-" + m.MessageId, nil }}, "f-m1"},
	}
	for _, tc := range cases {
		read, err := handler.KeyReader(tc.c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got, err := read(msg); err != nil || got != tc.want {
			t.Errorf("%s: key = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}

	read, err := handler.KeyReader(handler.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]error{
		`{"other":1}`:              idem.ErrNoKey,
		`{"idempotency_key":""}`:   idem.ErrNoKey,
		`{"idempotency_key":true}`: handler.ErrBadKey,
		`not json`:                 handler.ErrBadBody,
	} {
		if _, err := read(events.SQSMessage{MessageId: "m", Body: body}); !errors.Is(err, want) {
			t.Errorf("body %s: err = %v, want %v", body, err, want)
		}
	}
	panicky, err := handler.KeyReader(handler.Config{KeyFunc: func(events.SQSMessage) (string, error) { panic("boom") }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := panicky(msg); !errors.Is(err, handler.ErrPanic) {
		t.Errorf("panicking key func: err = %v, want ErrPanic", err)
	}
	var ce *idem.ConfigError
	if _, err := handler.KeyReader(handler.Config{KeyField: "a", KeyAttribute: "b"}); !errors.As(err, &ce) || ce.Field != "KeyAttribute" {
		t.Errorf("two key sources: err = %v, want a ConfigError naming KeyAttribute", err)
	}
}
