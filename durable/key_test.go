package durable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// The dispatcher names each execution after the record key a handler given
// the same request.Identity claims for the message: its namespace, a
// caller's scope, and the key from whichever source the Identity names.
func TestNamesTheHandlersKey(t *testing.T) {
	t.Parallel()
	scope := "acme"
	attr := func(name, v string) map[string]events.SQSMessageAttribute {
		return map[string]events.SQSMessageAttribute{name: {DataType: "String", StringValue: &v}}
	}
	for _, tc := range []struct {
		name string
		id   request.Identity
		msg  events.SQSMessage
	}{
		{"default field", request.Identity{Namespace: "summarise"},
			events.SQSMessage{Body: `{"idempotency_key":"order-1","prompt":"p"}`}},
		{"dotted field", request.Identity{Namespace: "summarise", KeyField: "request.id"},
			events.SQSMessage{Body: `{"request":{"id":"r-9"},"prompt":"p"}`}},
		{"two fields", request.Identity{Namespace: "docs", KeyFields: []string{"document_id", "version"}},
			events.SQSMessage{Body: `{"version":1,"document_id":"doc-1","prompt":"p"}`}},
		{"attribute", request.Identity{Namespace: "summarise", KeyAttribute: "key"},
			events.SQSMessage{Body: `{"prompt":"p"}`, MessageAttributes: attr("key", "k-3")}},
		{"func", request.Identity{Namespace: "summarise", KeyFunc: func(m events.SQSMessage) (string, error) { return idem.NaturalValue("x", m.Body[2:3]) }},
			events.SQSMessage{Body: `{"a":1}`}},
		{"scope", request.Identity{Namespace: "summarise"},
			events.SQSMessage{Body: `{"idempotency_key":"order-1","prompt":"p"}`, MessageAttributes: attr(request.ScopeAttribute, scope)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.msg.MessageId = "m1"
			store, err := memstore.New()
			if err != nil {
				t.Fatal(err)
			}
			h, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte("ok"), nil },
				handler.WithRequest(tc.id), handler.WithLogger(discard))
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{tc.msg}}); err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("handler: %+v, %v", resp, err)
			}
			page, err := store.List(context.Background(), idem.ListRequest{})
			if err != nil || len(page.Records) != 1 {
				t.Fatalf("the handler's records: %+v, %v; want one", page.Records, err)
			}
			claimed := page.Records[0].Key

			b := setup(t, 0, durable.WithRequest(tc.id))
			s, err := b.d.Dispatch(context.Background(), tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if s.Key != claimed || s.Name != durable.ExecutionName(string(claimed)) {
				t.Errorf("started key %q named %s; the handler claimed %q, named %s", s.Key, s.Name, claimed, durable.ExecutionName(string(claimed)))
			}
			if _, ok := b.srv.Execution("summarise", s.Name); !ok {
				t.Errorf("no execution named %s", s.Name)
			}
		})
	}
}

// Without a namespace the dispatcher takes the handler's default: the
// Lambda function's name, and outside Lambda the program's name; a
// handler with the same Identity in the same program claims the key the
// execution is named after.
func TestDefaultNamespaceIsTheHandlers(t *testing.T) {
	t.Parallel()
	msg := msg("m1", "order-1", "p")
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }, handler.WithLogger(discard))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}}); err != nil {
		t.Fatal(err)
	}
	page, err := store.List(context.Background(), idem.ListRequest{})
	if err != nil || len(page.Records) != 1 {
		t.Fatalf("%+v, %v", page, err)
	}
	b := setup(t, 0, durable.WithRequest(request.Identity{}))
	s, err := b.d.Dispatch(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Key != page.Records[0].Key || s.Key == "summarise#order-1" {
		t.Errorf("started key %q; the handler claimed %q", s.Key, page.Records[0].Key)
	}
}
