package recordkey_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/cmd/idemq/internal/recordkey"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

func TestKey(t *testing.T) {
	t.Parallel()
	ns := request.Identity{Namespace: "summarise"}
	fields := request.Identity{Namespace: "docs", KeyFields: []string{"document_id", "version"}}
	for _, tc := range []struct {
		name string
		id   request.Identity
		t    recordkey.Typed
		want idem.Key
	}{
		{"a client's key", ns, recordkey.Typed{Value: "doc-4471"}, "summarise#doc-4471"},
		{"a scoped key", ns, recordkey.Typed{Value: "doc-4471", Scope: "acme"}, "summarise:acme#doc-4471"},
		{"a body, default field", ns, recordkey.Typed{Body: `{"idempotency_key":"doc-4471","prompt":"p"}`}, "summarise#doc-4471"},
		{"a body with a scope", ns, recordkey.Typed{Body: `{"idempotency_key":"doc-4471"}`, Scope: "acme"}, "summarise:acme#doc-4471"},
		{"a body, dotted field", request.Identity{Namespace: "summarise", KeyField: "request.id"},
			recordkey.Typed{Body: `{"request":{"id":7}}`}, "summarise#7"},
		{"a natural key's value", fields, recordkey.Typed{Value: "document_id:doc-1:version:1"}, "docs#document_id:doc-1:version:1"},
		{"a natural key's body", fields, recordkey.Typed{Body: `{"version":1.0,"document_id":"doc-1"}`}, "docs#document_id:doc-1:version:1"},
		{"a natural key's body, scoped", fields, recordkey.Typed{Body: `{"document_id":"doc-1","version":"1"}`, Scope: "acme"}, "docs:acme#document_id:doc-1:version:1"},
		{"an attribute's value", request.Identity{Namespace: "summarise", KeyAttribute: "key"}, recordkey.Typed{Value: "k-1"}, "summarise#k-1"},
		{"a namespace to escape", request.Identity{Namespace: "a:b"}, recordkey.Typed{Value: "k"}, "a%3Ab#k"},
		{"raw, in the namespace", ns, recordkey.Typed{Value: "summarise:acme#doc-1", Raw: true}, "summarise:acme#doc-1"},
		{"raw, no namespace", request.Identity{}, recordkey.Typed{Value: "other#doc-1", Raw: true}, "other#doc-1"},
	} {
		got, err := recordkey.Key(tc.id, tc.t)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestKeyRefuses(t *testing.T) {
	t.Parallel()
	ns := request.Identity{Namespace: "summarise"}
	for _, tc := range []struct {
		name string
		id   request.Identity
		t    recordkey.Typed
		want error
	}{
		{"no namespace", request.Identity{}, recordkey.Typed{Value: "k"}, recordkey.ErrUsage},
		{"no key", ns, recordkey.Typed{}, recordkey.ErrUsage},
		{"a key and a body", ns, recordkey.Typed{Value: "k", Body: `{"idempotency_key":"k"}`}, recordkey.ErrUsage},
		{"a body without the key", ns, recordkey.Typed{Body: `{"prompt":"p"}`}, idem.ErrNoKey},
		{"a body that is not JSON", ns, recordkey.Typed{Body: `idempotency_key=k`}, request.ErrBadBody},
		{"a body, the key in an attribute", request.Identity{Namespace: "summarise", KeyAttribute: "key"}, recordkey.Typed{Body: `{"key":"k"}`}, recordkey.ErrUsage},
		{"a natural key's body short of a field", request.Identity{Namespace: "docs", KeyFields: []string{"document_id", "version"}}, recordkey.Typed{Body: `{"document_id":"doc-1"}`}, idem.ErrNoKey},
		{"two key sources", request.Identity{Namespace: "docs", KeyField: "id", KeyFields: []string{"a", "b"}}, recordkey.Typed{Value: "k"}, recordkey.ErrUsage},
		{"a control character", ns, recordkey.Typed{Value: "k\x1b[2J"}, idem.ErrBadKey},
		{"a bad scope", ns, recordkey.Typed{Value: "k", Scope: "a\x00"}, idem.ErrBadKey},
		{"raw, another namespace", ns, recordkey.Typed{Value: "other#k", Raw: true}, recordkey.ErrUsage},
		{"raw, a namespace sharing its first letters", ns, recordkey.Typed{Value: "summarise2#k", Raw: true}, recordkey.ErrUsage},
		{"raw, no form", ns, recordkey.Typed{Value: "summarise", Raw: true}, recordkey.ErrUsage},
		{"raw with a scope", ns, recordkey.Typed{Value: "summarise#k", Scope: "acme", Raw: true}, recordkey.ErrUsage},
		{"raw, empty", ns, recordkey.Typed{Raw: true}, recordkey.ErrUsage},
	} {
		got, err := recordkey.Key(tc.id, tc.t)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %q, %v; want an error matching %v", tc.name, got, err, tc.want)
		}
	}
}
