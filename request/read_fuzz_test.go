package request_test

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/internal/fuzzreq"
	"github.com/idemq/idemq/request"
)

// FuzzRead checks how a handler reads a message's identity
// (request.Reader.Read), for every key source, on any body, key attribute
// and scope attribute (its seed corpus is testdata/fuzz/FuzzRead, replayed
// by every go test; make fuzz explores):
//   - nothing panics, the message is not changed, and the same message
//     gives the same ID (or error) every time; ReadKey gives Read's key;
//   - a refusal is idem.ErrNoKey, ErrBadKey, ErrBadBody or the key func's
//     own error;
//   - an accepted key value and scope obey the key rule (idem.CheckValue);
//     the record key is in the namespace, scoped exactly when the message
//     has a scope, holds the value (or its hash, when too long), and is
//     Reader.ID's for the value and the scope;
//   - a body the key (or a fingerprint field) was read from has no
//     ambiguous member on the field's path (idemjson.CheckUnambiguous),
//     and encoding/json, decoding the key member as a worker would, reads
//     the key that was read;
//   - the body spelled another way (members in another order, other white
//     space, strings escaped) reads the same ID, or the same refusal.
func FuzzRead(f *testing.F) {
	readers := make([]*request.Reader, len(fuzzreq.Rules))
	for i, rule := range fuzzreq.Rules {
		r, err := request.NewReader(request.Identity(rule.Identity))
		if err != nil {
			f.Fatalf("rule %s: %v", rule.Name, err)
		}
		readers[i] = r
	}
	f.Fuzz(func(t *testing.T, ruleN uint8, body string, key string, keyType uint8, scope string, scopeType uint8) {
		i := int(ruleN) % len(fuzzreq.Rules)
		rule, r := fuzzreq.Rules[i], readers[i]
		msg := events.SQSMessage{MessageId: "m-1", Body: body, MessageAttributes: map[string]events.SQSMessageAttribute{}}
		if a, ok := fuzzreq.Attribute(keyType, key); ok {
			msg.MessageAttributes["key"] = a
		}
		if a, ok := fuzzreq.Attribute(scopeType, scope); ok {
			msg.MessageAttributes[request.ScopeAttribute] = a
		}
		attrs := maps.Clone(msg.MessageAttributes)

		id, err := r.Read(msg)
		if id2, err2 := r.Read(msg); id2 != id || !sameErr(err, err2) {
			t.Fatalf("rule %s: read twice: %+v %v, then %+v %v", rule.Name, id, err, id2, err2)
		}
		if msg.Body != body || !reflect.DeepEqual(msg.MessageAttributes, attrs) {
			t.Fatalf("rule %s: Read changed the message", rule.Name)
		}
		kid, kerr := r.ReadKey(msg)
		switch {
		case err == nil && (kerr != nil || kid.Key != id.Key || kid.Value != id.Value || kid.Scope != id.Scope || kid.Fingerprint != ""):
			t.Fatalf("rule %s: Read %+v, ReadKey %+v %v", rule.Name, id, kid, kerr)
		case err != nil && kerr == nil && !errors.Is(err, request.ErrBadBody):
			t.Fatalf("rule %s: Read refused the fingerprint (%v), not as ErrBadBody", rule.Name, err)
		}
		if err != nil {
			if id != (request.ID{}) {
				t.Fatalf("rule %s: refused (%v) with an ID %+v", rule.Name, err, id)
			}
			if !knownRefusal(err) {
				t.Fatalf("rule %s: refused with %v, none of the sentinels", rule.Name, err)
			}
		} else {
			checkAccepted(t, rule, r, msg, id)
		}

		// Another spelling of a body encoding/json reads exactly.
		if _, ferr := idemjson.Fingerprint([]byte(body)); ferr != nil {
			return
		}
		other, rerr := fuzzreq.Reencode([]byte(body))
		if rerr != nil {
			t.Fatalf("a body idemjson.Fingerprint takes, encoding/json cannot read: %v", rerr)
		}
		msg.Body = string(other)
		id2, err2 := r.Read(msg)
		switch {
		case err == nil && (err2 != nil || id2 != id):
			t.Fatalf("rule %s: %q reads %+v; spelled %q, %+v %v", rule.Name, body, id, other, id2, err2)
		case err != nil && (err2 == nil || refusal(err) != refusal(err2)):
			t.Fatalf("rule %s: %q is refused (%v); spelled %q, %+v %v", rule.Name, body, err, other, id2, err2)
		}
	})
}

// checkAccepted checks an ID Read accepted.
func checkAccepted(t *testing.T, rule fuzzreq.Rule, r *request.Reader, msg events.SQSMessage, id request.ID) {
	t.Helper()
	if err := idem.CheckValue(id.Value); err != nil {
		t.Fatalf("rule %s: accepted value %q: %v", rule.Name, id.Value, err)
	}
	if a, ok := msg.MessageAttributes[request.ScopeAttribute]; ok != (id.Scope != "") || (ok && (a.StringValue == nil || *a.StringValue != id.Scope)) {
		t.Fatalf("rule %s: scope %q read from the attribute %+v", rule.Name, id.Scope, a)
	}
	if id.Scope != "" {
		if err := idem.CheckValue(id.Scope); err != nil {
			t.Fatalf("rule %s: accepted scope %q: %v", rule.Name, id.Scope, err)
		}
	}
	if again, err := r.ID(id.Value, id.Scope); err != nil || again.Key != id.Key {
		t.Fatalf("rule %s: Read's key %q, ID's %q %v", rule.Name, id.Key, again.Key, err)
	}
	if ns := rule.Identity.Namespace; ns == "" {
		if id.Key != "" {
			t.Fatalf("rule %s: a key %q without a namespace", rule.Name, id.Key)
		}
	} else {
		_, scope, value := id.Key.Parts()
		switch {
		case !id.Key.InNamespace(ns):
			t.Fatalf("rule %s: key %q is not in namespace %q", rule.Name, id.Key, ns)
		case (scope != "") != (id.Scope != ""):
			t.Fatalf("rule %s: key %q has scope %q, the message %q", rule.Name, id.Key, scope, id.Scope)
		case value != id.Value && (!strings.HasPrefix(value, "sha256:") || len(id.Key) > idem.MaxKeyBytes || escapedLen(ns)+escapedLen(id.Scope)+len(id.Value)+2 <= idem.MaxKeyBytes):
			t.Fatalf("rule %s: key %q holds %q, not the value %q", rule.Name, id.Key, value, id.Value)
		}
	}
	if len(rule.Fields) > 0 {
		if err := idemjson.CheckUnambiguous(msg.Body, rule.Fields...); err != nil {
			t.Fatalf("rule %s: accepted %q, whose fields are ambiguous: %v", rule.Name, msg.Body, err)
		}
	}
	if rule.Path != nil {
		v, ok, err := fuzzreq.KeyRead([]byte(msg.Body), rule.Path)
		if err != nil || !ok || v != id.Value {
			t.Fatalf("rule %s: read key %q from %q; encoding/json reads %q (%v, %v)", rule.Name, id.Value, msg.Body, v, ok, err)
		}
	}
}

// escapedLen is the length of s escaped in a key (%, : and # as %XX).
func escapedLen(s string) int {
	return len(s) + 2*(strings.Count(s, "%")+strings.Count(s, ":")+strings.Count(s, "#"))
}

// errFromFunc marks the key func's own refusal.
var errFromFunc = fuzzreq.ErrFuncRefused

// refusal names the sentinel err wraps; "" for none.
func refusal(err error) string {
	for _, s := range []struct {
		name string
		err  error
	}{
		{"ErrNoKey", idem.ErrNoKey}, {"ErrBadKey", idem.ErrBadKey}, {"ErrBadBody", request.ErrBadBody},
		{"ErrKeyFuncPanic", request.ErrKeyFuncPanic}, {"the func's", errFromFunc},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return ""
}

func knownRefusal(err error) bool { return refusal(err) != "" }

// sameErr reports whether a and b are both nil or say the same.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}
