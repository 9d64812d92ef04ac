package contract

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/recordkey"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

var (
	cases = flag.Int("contract.cases", 1500, "how many random requests the property test sends through every part")
	first = flag.Uint64("contract.seed", 1, "the first case's seed")
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// One request, one key, one record: for random bodies, key rules,
// namespaces and scopes, the record key the producer reports
// (Sent.RecordKey), the key the handler claims (at the store) for the
// message the producer put on the queue, the key the command's key path
// makes of the key typed and of the body (internal/recordkey, the
// command's own code), and the execution the dispatcher names
// (durable.ExecutionName of it) are one key; a second delivery, and the
// same request re-sent by the producer, reach the record the first
// made: the work runs once.
func TestOneKeyEveryPart(t *testing.T) {
	t.Parallel()
	failures := 0
	byRule := map[rule]int{}
	for seed := *first; seed < *first+uint64(*cases); seed++ {
		c := generate(seed)
		byRule[c.rule]++
		if err := checkCase(context.Background(), c); err != nil {
			t.Errorf("%v\n%v", err, c)
			if failures++; failures == 10 {
				t.Fatal("10 cases failed; stopping")
			}
		}
	}
	t.Logf("%d cases from seed %d: %v", *cases, *first, byRule)
	for r := range rules {
		if byRule[r] == 0 {
			t.Errorf("no case of the %s rule", r)
		}
	}
}

// checkCase sends c through every part and returns what disagreed.
func checkCase(ctx context.Context, c sample) error {
	q := &queue{}
	p, err := producer.New(q, "https://sqs.us-east-1.amazonaws.com/123456789012/requests", producer.WithRequest(c.id))
	if err != nil {
		return fmt.Errorf("producer.New: %w", err)
	}
	sent, err := p.Send(ctx, producer.Message{Key: c.value, Body: []byte(c.body), Scope: c.scope, Attributes: c.attrs})
	if err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	key := sent.RecordKey
	if key == "" || !key.InNamespace(c.id.Namespace) {
		return fmt.Errorf("producer: record key %q is not in namespace %q", key, c.id.Namespace)
	}
	msgs := q.take()
	if len(msgs) != 1 {
		return fmt.Errorf("producer: %d messages on the queue, want 1", len(msgs))
	}
	msg := msgs[0]

	// The handler, over the message the producer sent, twice.
	st := newStore()
	var runs atomic.Int32
	h, err := handler.New(st, func(context.Context, events.SQSMessage) ([]byte, error) {
		runs.Add(1)
		return []byte(`"done"`), nil
	}, handler.WithRequest(c.id), handler.WithLogger(discard))
	if err != nil {
		return fmt.Errorf("handler.New: %w", err)
	}
	for range 2 {
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{msg}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			return fmt.Errorf("handler: %+v, %v", resp, err)
		}
	}
	for _, k := range st.claims() {
		if k != key {
			return fmt.Errorf("handler claimed %q; the producer reported %q", k, key)
		}
	}

	// The producer re-sends the request (its answer was lost): a new
	// message, the same record.
	if _, err := p.Send(ctx, producer.Message{Key: sent.Key, Body: []byte(c.body), Scope: c.scope, Attributes: c.attrs}); err != nil {
		return fmt.Errorf("producer, re-sent: %w", err)
	}
	resent := q.take()
	if len(resent) != 1 || resent[0].Body != msg.Body {
		return fmt.Errorf("re-sent: %d messages %+v; want one with the first body %q", len(resent), resent, msg.Body)
	}
	if resp, err := h(ctx, events.SQSEvent{Records: resent}); err != nil || len(resp.BatchItemFailures) != 0 {
		return fmt.Errorf("handler, re-sent: %+v, %v", resp, err)
	}
	if n := runs.Load(); n != 1 {
		return fmt.Errorf("the work ran %d times for two deliveries and a re-send, want once", n)
	}

	// The command's key path: the worker's key settings as its variables
	// hold them, and the key as an operator types it (the value the
	// producer reported, as the log shows it) or the body.
	s := recordkey.Settings{Namespace: c.id.Namespace, KeyField: c.id.KeyField, KeyFields: strings.Join(c.id.KeyFields, ","), KeyAttribute: c.id.KeyAttribute}
	typed, err := s.Key(recordkey.Typed{Value: sent.Key, Scope: c.scope})
	if err != nil || typed != key {
		return fmt.Errorf("command, key %q: %q, %v; want %q", sent.Key, typed, err, key)
	}
	if c.rule.readsBody() {
		fromBody, err := s.Key(recordkey.Typed{Body: msg.Body, Scope: c.scope})
		if err != nil || fromBody != key {
			return fmt.Errorf("command, --body: %q, %v; want %q", fromBody, err, key)
		}
	}
	if raw, err := s.Key(recordkey.Typed{Value: string(key), Raw: true}); err != nil || raw != key {
		return fmt.Errorf("command, --raw: %q, %v", raw, err)
	}
	rec, ok, err := st.Get(ctx, typed)
	if err != nil || !ok || rec.Status != idem.StatusCompleted {
		return fmt.Errorf("command: the record of %q: %+v, %v, %v; want the handler's, completed", typed, rec, ok, err)
	}
	if page, err := st.List(ctx, idem.ListRequest{Namespace: c.id.Namespace}); err != nil || len(page.Records) != 1 || page.Records[0].Key != key {
		return fmt.Errorf("command: list of namespace %q: %+v, %v; want the one record", c.id.Namespace, page.Records, err)
	}

	// The dispatcher names the execution after the record key.
	inv := &invoker{}
	d, err := durable.New(inv, "work:prod", durable.WithRequest(c.id), durable.WithLogger(discard))
	if err != nil {
		return fmt.Errorf("durable.New: %w", err)
	}
	for _, m := range []events.SQSMessage{msg, resent[0]} {
		start, err := d.Dispatch(ctx, m)
		if err != nil {
			return fmt.Errorf("dispatcher: %w", err)
		}
		if start.Key != key || start.Name != durable.ExecutionName(string(key)) {
			return fmt.Errorf("dispatcher: key %q named %s; want %q named %s", start.Key, start.Name, key, durable.ExecutionName(string(key)))
		}
	}
	for _, name := range inv.names {
		if name != durable.ExecutionName(string(key)) {
			return fmt.Errorf("dispatcher invoked %s, want %s", name, durable.ExecutionName(string(key)))
		}
	}
	return nil
}

// The generator makes what it says: every case's body is a JSON object
// that its Identity reads a key from, once stamped.
func TestGenerator(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		c := generate(seed)
		if err := c.id.Validate(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if _, err := request.NewReader(c.id); err != nil {
			t.Fatal(err)
		}
		if generate(seed).body != c.body {
			t.Fatalf("seed %d makes two bodies", seed)
		}
	}
}
