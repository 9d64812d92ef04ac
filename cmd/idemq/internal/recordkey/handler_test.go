package recordkey_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/cmd/idemq/internal/recordkey"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/request"
)

// The command's key is the one the handler claims: for each key rule,
// with and without a caller's scope, and names that need escaping, the
// handler takes a message over memstore; the command, with the worker's
// Identity as its variables hold it (written and read back by idemqenv),
// makes the same key of the value as a log shows it, of the body (for a
// key read from the body), and of the stored key (--raw). The cross-part
// property test (harness/internal/contract) holds the handler's key
// against the producer's, the front door's and the dispatcher's.
func TestKeyIsTheHandlers(t *testing.T) {
	t.Parallel()
	type carrier struct {
		rule   string
		id     request.Identity
		value  string // the key as the command is given it
		body   string // the message's body
		attr   string // the key attribute's value, "" for none
		inBody bool   // the command can read the key from the body
	}
	for _, c := range []carrier{
		{"default field", request.Identity{Namespace: "summarise"}, "doc-4471", `{"idempotency_key":"doc-4471","prompt":"p"}`, "", true},
		{"escaped value", request.Identity{Namespace: "a:b#c%"}, `k:1#x%"é😀`, `{"idempotency_key":"k:1#x%\"\u00e9😀"}`, "", true},
		{"dotted field", request.Identity{Namespace: "n", KeyField: "req.id"}, "7", `{"req":{"id":7}}`, "", true},
		{"two fields", request.Identity{Namespace: "docs", KeyFields: []string{"document_id", "version"}},
			"document_id:doc-1:version:1", `{"version":1.0,"document_id":"doc-1"}`, "", true},
		{"attribute", request.Identity{Namespace: "summarise", KeyAttribute: "key"}, "k-1", `{"prompt":"p"}`, "k-1", false},
	} {
		for _, scope := range []string{"", "acme", "a:b#c"} {
			msg := events.SQSMessage{MessageId: "m-1", ReceiptHandle: "rh-1", Body: c.body,
				EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:jobs", MessageAttributes: map[string]events.SQSMessageAttribute{}}
			if c.attr != "" {
				msg.MessageAttributes[c.id.KeyAttribute] = events.SQSMessageAttribute{DataType: "String", StringValue: &c.attr}
			}
			if scope != "" {
				msg.MessageAttributes[request.ScopeAttribute] = events.SQSMessageAttribute{DataType: "String", StringValue: &scope}
			}
			claimed := handlersKey(t, c.id, msg)

			env := idemqenv.Settings{Program: idemqenv.Command, Request: c.id}.Environ()
			read, err := idemqenv.ReadFor(idemqenv.Command, func(name string) string { return env[name] })
			if err != nil {
				t.Fatalf("%s: the worker's variables %v: %v", c.rule, env, err)
			}
			typed := []recordkey.Typed{{Value: c.value, Scope: scope}, {Value: string(claimed), Raw: true}}
			if c.inBody {
				typed = append(typed, recordkey.Typed{Body: c.body, Scope: scope})
			}
			for _, ty := range typed {
				if got, err := recordkey.Key(read.Request, ty); err != nil || got != claimed {
					t.Errorf("%s, scope %q, %+v: %q, %v; the handler claimed %q", c.rule, scope, ty, got, err, claimed)
				}
			}
		}
	}
}

// handlersKey returns the key of the one record the handler made for
// msg under id.
func handlersKey(t *testing.T, id request.Identity, msg events.SQSMessage) idem.Key {
	t.Helper()
	st, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := handler.New(st, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte(`"done"`), nil },
		handler.WithRequest(id), handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}}); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("handler: %+v, %v", resp, err)
	}
	page, err := st.List(context.Background(), idem.ListRequest{Namespace: id.Namespace})
	if err != nil || len(page.Records) != 1 {
		t.Fatalf("the handler's records in namespace %q: %+v, %v; want one", id.Namespace, page.Records, err)
	}
	return page.Records[0].Key
}
