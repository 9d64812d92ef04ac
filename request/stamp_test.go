package request_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

func TestStamp(t *testing.T) {
	t.Parallel()
	r := reader(t, request.Identity{Namespace: "ns"})
	msg, id, err := r.Stamp(events.SQSMessage{Body: `{"prompt":"<a> & <b>"}`}, "k", "acme")
	if err != nil {
		t.Fatal(err)
	}
	if msg.Body != `{"idempotency_key":"k","prompt":"<a> & <b>"}` || id.Key != "ns:acme#k" {
		t.Errorf("Stamp = %s, %+v", msg.Body, id)
	}
	// The same key again: nothing to do; another: refused.
	if again, _, err := r.Stamp(msg, "k", "acme"); err != nil || again.Body != msg.Body {
		t.Errorf("stamping a stamped message: %s, %v", again.Body, err)
	}
	for _, tt := range []struct{ value, scope string }{{"other", "acme"}, {"k", "other"}, {"k", ""}} {
		if _, _, err := r.Stamp(msg, tt.value, tt.scope); !errors.Is(err, request.ErrKeyMismatch) {
			t.Errorf("Stamp(%q, %q) over key k, scope acme: %v; want ErrKeyMismatch", tt.value, tt.scope, err)
		}
	}
	// No key given, none held.
	if _, _, err := r.Stamp(events.SQSMessage{Body: `{}`}, "", ""); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
	// A key the rule refuses is never put in a message.
	if _, _, err := r.Stamp(events.SQSMessage{Body: `{}`}, "a\x1bb", ""); !errors.Is(err, idem.ErrBadKey) {
		t.Errorf("a control character: %v", err)
	}
	// The message is the caller's: not changed.
	orig := events.SQSMessage{Body: `{}`, MessageAttributes: map[string]events.SQSMessageAttribute{"x": attr("y")}}
	if _, _, err := r.Stamp(orig, "k", "acme"); err != nil || len(orig.MessageAttributes) != 1 || orig.Body != `{}` {
		t.Errorf("Stamp changed its argument: %+v, %v", orig, err)
	}
	// Fields: the message makes the key.
	nat := reader(t, request.Identity{Namespace: "ns", KeyFields: []string{"doc"}})
	if _, id, err := nat.Stamp(events.SQSMessage{Body: `{"doc":"d"}`}, "", ""); err != nil || id.Key != "ns#doc:d" {
		t.Errorf("fields: %+v, %v", id, err)
	}
	if _, _, err := nat.Stamp(events.SQSMessage{Body: `{"doc":"d"}`}, "other", ""); !errors.Is(err, request.ErrKeyMismatch) {
		t.Errorf("fields with another key: %v", err)
	}
	if _, _, err := nat.Stamp(events.SQSMessage{Body: `{}`}, "doc:d", ""); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("fields absent: %v", err)
	}
	// An attribute.
	at := reader(t, request.Identity{Namespace: "ns", KeyAttribute: "key"})
	if m, id, err := at.Stamp(events.SQSMessage{Body: "text"}, "k", ""); err != nil || id.Key != "ns#k" || *m.MessageAttributes["key"].StringValue != "k" {
		t.Errorf("attribute: %+v, %v", id, err)
	}
}

// genBody is a random JSON object body whose members are names from a
// small set (so that they collide with the key fields) and values of
// every kind.
func genBody(rng *rand.Rand) map[string]any {
	names := []string{"idempotency_key", "doc", "version", "prompt", "k", "trace"}
	obj := map[string]any{}
	for range rng.IntN(5) {
		obj[names[rng.IntN(len(names))]] = genValue(rng, 2)
	}
	return obj
}

func genValue(rng *rand.Rand, depth int) any {
	texts := []string{"x", "é", "a:b", "#", "%3A", "<&>", "\u202e", " ", "1", "\x1b", ""}
	switch n := rng.IntN(7); {
	case n == 0 && depth > 0:
		return map[string]any{"id": genValue(rng, depth-1)}
	case n == 1:
		return rng.IntN(100)
	case n == 2:
		return nil
	case n == 3:
		return rng.IntN(2) == 0
	default:
		return texts[rng.IntN(len(texts))] + texts[rng.IntN(len(texts))]
	}
}

// Random bodies × key rules × scopes × namespaces: a message stamped with
// a key is read back with that key, holds every member it was given
// unchanged, and two stamps of one request make one key.
func TestStampProperty(t *testing.T) {
	t.Parallel()
	rules := []request.Identity{
		{}, {KeyField: "doc.id"}, {KeyFields: []string{"doc", "version"}}, {KeyAttribute: "key"},
		{KeyFunc: func(m events.SQSMessage) (string, error) {
			if a, ok := m.MessageAttributes["key"]; ok {
				return *a.StringValue, nil
			}
			return "", idem.ErrNoKey
		}},
	}
	values := []string{"", "k", "a:b", "é#1", "acme:k", "..", strings.Repeat("z", 300), "a\nb"}
	scopes := []string{"", "acme", "a:b", "acme:k"}
	rng := rand.New(rand.NewPCG(1, 2))
	keys := map[idem.Key]string{} // key → the request it names
	for i := range 3000 {
		id := rules[rng.IntN(len(rules))]
		id.Namespace = []string{"ns", "other", "n:s"}[rng.IntN(3)]
		r := reader(t, id)
		members := genBody(rng)
		body, _ := json.Marshal(members)
		value, scope := values[rng.IntN(len(values))], scopes[rng.IntN(len(scopes))]
		msg, got, err := r.Stamp(events.SQSMessage{Body: string(body)}, value, scope)
		if err != nil {
			if errors.Is(err, idem.ErrNoKey) || errors.Is(err, idem.ErrBadKey) || errors.Is(err, request.ErrKeyMismatch) || errors.Is(err, request.ErrBadBody) {
				continue
			}
			t.Fatalf("case %d: %s %s, %q %q: unexpected error %v", i, id.Source(), body, value, scope, err)
		}
		read, err := r.Read(msg)
		if err != nil || read != got || (value != "" && got.Value != value) || got.Scope != scope {
			t.Fatalf("case %d: stamped %+v, read back %+v, %v (value %q scope %q)", i, got, read, err, value, scope)
		}
		// Every member the caller sent is there, unchanged.
		var sent map[string]any
		if id.KeyAttribute == "" && id.KeyFunc == nil {
			if err := json.Unmarshal([]byte(msg.Body), &sent); err != nil {
				t.Fatalf("case %d: the stamped body %s is not JSON: %v", i, msg.Body, err)
			}
			for name, v := range members {
				if !reflect.DeepEqual(normal(sent[name]), normal(v)) && !(name == "idempotency_key" && (v == nil || v == "")) && !(name == "doc" && id.KeyField == "doc.id") {
					t.Fatalf("case %d: member %q was %v, is %v", i, name, v, sent[name])
				}
			}
		} else if msg.Body != string(body) {
			t.Fatalf("case %d: the body changed: %s → %s", i, body, msg.Body)
		}
		what := fmt.Sprintf("%s|%s|%s", id.Namespace, scope, got.Value)
		if prev, ok := keys[got.Key]; ok && prev != what {
			t.Fatalf("case %d: key %q names %s and %s", i, got.Key, prev, what)
		}
		keys[got.Key] = what
	}
	if len(keys) < 50 {
		t.Fatalf("only %d keys were made: the generator is too narrow", len(keys))
	}
}

// normal makes JSON values comparable after a round trip.
func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
