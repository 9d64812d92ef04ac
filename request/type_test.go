package request_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

type kind struct {
	Kind string `json:"kind" idemq:"key"`
}

func TestDecode(t *testing.T) {
	t.Parallel()
	one := must(request.NewType[oneKey](request.Identity{}))
	sum := must(request.NewType[summarise](request.Identity{}))
	quoted := must(request.NewType[quotedBool](request.Identity{}))
	custom := must(request.NewType[customKey](request.Identity{}))
	kinds := must(request.NewType[kind](request.Identity{}))
	ptr := must(request.NewType[*oneKey](request.Identity{}))
	for _, tc := range []struct {
		name   string
		decode func([]byte) (any, error)
		body   string
		want   any    // the value decoded, when it decodes
		detail string // in the error's text, when it does not
	}{
		{"a request", anyOf(one.Decode), `{"id":"a","prompt":"p","unknown":1}`, oneKey{ID: "a", Prompt: "p"}, ""},
		{"into a pointer type", anyOf(ptr.Decode), `{"id":"a"}`, &oneKey{ID: "a"}, ""},
		{"not JSON", anyOf(one.Decode), `{"id":`, nil, "not valid JSON"},
		{"an array", anyOf(one.Decode), `[{"id":"a"}]`, nil, "not a JSON object"},
		{"null", anyOf(one.Decode), ` null`, nil, "not a JSON object"},
		{"a member of another type", anyOf(one.Decode), `{"id":7}`, nil, `member "id": a JSON number does not decode into string`},
		{"a number out of range, its value not repeated", anyOf(must(request.NewType[struct {
			N int8 `json:"n"`
		}](request.Identity{})).Decode), `{"n":300}`, nil, `member "n": a JSON number does not decode into int8`},
		{"a nested member of another type", anyOf(sum.Decode), `{"document":{"id":"d","version":"9"}}`, nil, `member "document.version"`},
		{"the key's member named alike after it", anyOf(one.Decode), `{"id":"a","ID":"b"}`, nil, `member "id" does not decode into its field as it decodes alone`},
		{"the key's member named alike before it", anyOf(one.Decode), `{"ID":"b","id":"a"}`, oneKey{ID: "a"}, ""},
		{"a nested key member named alike", anyOf(sum.Decode), `{"document":{"id":"a","Id":"b","version":1},"prompt":"p","tenant":"t","a.b":""}`, nil, `member "document.id"`},
		{"a fingerprint member named alike", anyOf(sum.Decode), `{"document":{"id":"a","version":1},"prompt":"p","PROMPT":"q","tenant":"t","a.b":""}`, nil, `member "prompt"`},
		{"a member named with the Kelvin sign", anyOf(kinds.Decode), `{"kind":"a","\u212aind":"b"}`, nil, `member "kind"`},
		{"a quoted bool", anyOf(quoted.Decode), `{"flag":"true"}`, quotedBool{Flag: true}, ""},
		{"a key that decodes itself, spelled its own way", anyOf(custom.Decode), `{"at":"2026-01-02T03:04:05.000Z"}`, nil, ""},
	} {
		got, err := tc.decode([]byte(tc.body))
		switch {
		case tc.detail == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.detail == "" && tc.want != nil && !equalValues(got, tc.want):
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		case tc.detail != "":
			de, ok := errors.AsType[*request.DecodeError](err)
			if !ok || !errors.Is(err, request.ErrBadBody) || !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("%s: %v, want a DecodeError (ErrBadBody) saying %q", tc.name, err, tc.detail)
			} else if de.Type == "" {
				t.Errorf("%s: %v names no type", tc.name, err)
			}
		}
	}
}

func anyOf[T any](decode func([]byte) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) { return decode(b) }
}

func equalValues(a, b any) bool {
	if pa, ok := a.(*oneKey); ok {
		pb, ok := b.(*oneKey)
		return ok && *pa == *pb
	}
	return a == b
}

// A type's key is what its Reader reads from its JSON form, and the
// settings join its tags.
func TestNewType(t *testing.T) {
	t.Parallel()
	typ, err := request.NewType[oneKey](request.Identity{Namespace: "ns", FingerprintFields: []string{"prompt"}})
	if err != nil {
		t.Fatal(err)
	}
	if id := typ.Identity(); id.Namespace != "ns" || id.KeyField != "id" || len(id.FingerprintFields) != 1 || !typ.CarriesKey() {
		t.Errorf("%+v", id)
	}
	id, err := typ.ID(oneKey{ID: "req-1", Prompt: "p"})
	if err != nil || id.Key != "ns#req-1" {
		t.Errorf("%+v %v", id, err)
	}
	if _, err := typ.ID(oneKey{Prompt: "p"}); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("an empty key: %v, want idem.ErrNoKey", err)
	}
	_, err = request.NewType[oneKey](request.Identity{KeyAttribute: "k"})
	if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Field != "KeyAttribute" {
		t.Errorf("an attribute against the type's key field: %v", err)
	}
	untagged := must(request.NewType[struct{ Prompt string }](request.Identity{}))
	if untagged.CarriesKey() {
		t.Error("a type without the default key field carries its key")
	}
	withDefault := must(request.NewType[struct {
		Key string `json:"idempotency_key"`
	}](request.Identity{}))
	if !withDefault.CarriesKey() {
		t.Error("a type with the default key field does not carry its key")
	}
}
