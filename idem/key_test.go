package idem_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

func TestJSONKeyIgnoresEncoding(t *testing.T) {
	t.Parallel()
	same := []string{
		`{"model":"m1","prompt":"hi","n":1}`,
		`{ "prompt" : "hi", "model":"m1", "n": 1.0 , "extra": true}`,
		`{"n":1e0,"prompt":"h\u0069","model":"m1"}`,
	}
	var want idem.Key
	for i, body := range same {
		k, err := idem.JSONKey("fn", []byte(body), "model", "prompt", "n")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if i == 0 {
			want = k
		} else if k != want {
			t.Fatalf("%s: key %s, want %s (same fields, other encoding)", body, k, want)
		}
	}
	if !strings.HasPrefix(string(want), "fn#json(model,n,prompt):sha256:") {
		t.Fatalf("key %s does not name its namespace and fields", want)
	}
	other, _ := idem.JSONKey("fn", []byte(`{"model":"m1","prompt":"hi!","n":1}`), "model", "prompt", "n")
	if other == want {
		t.Fatal("a different prompt made the same key")
	}
}

func TestJSONKeyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		fields     []string
	}{
		{"absent field", `{"model":"m1"}`, []string{"model", "prompt"}},
		{"null field", `{"model":"m1","prompt":null}`, []string{"prompt"}},
		{"not JSON", `model=m1`, []string{"model"}},
		{"trailing data", `{"model":"m1"} {}`, []string{"model"}},
		{"not an object", `["m1"]`, []string{"model"}},
		{"no fields", `{"model":"m1"}`, nil},
		{"absent nested", `{"doc":{"v":1}}`, []string{"doc.id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := idem.JSONKey("fn", []byte(tt.body), tt.fields...)
			if !errors.Is(err, idem.ErrNoKey) {
				t.Fatalf("key %q, err %v; want idem.ErrNoKey", k, err)
			}
		})
	}
}

func TestJSONKeyNestedField(t *testing.T) {
	t.Parallel()
	a, err := idem.JSONKey("fn", []byte(`{"doc":{"id":4471,"v":9},"x":1}`), "doc.id")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idem.JSONKey("fn", []byte(`{"x":2,"doc":{"v":10,"id":4471}}`), "doc.id")
	c, _ := idem.JSONKey("fn", []byte(`{"doc":{"id":4472}}`), "doc.id")
	if a != b || a == c {
		t.Fatalf("nested keys: %s %s %s; want the first two equal and the third different", a, b, c)
	}
}

func TestNaturalKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ns    string
		parts []string
		want  idem.Key
	}{
		{"summarise", []string{"doc", "4471", "v9"}, "summarise#doc:4471:v9"},
		{"fn", []string{"a:b"}, "fn#a%3Ab"},
		{"fn", []string{"a", "b"}, "fn#a:b"},
		{"f#n", []string{"x"}, "f%23n#x"},
		{"fn", []string{"100%"}, "fn#100%25"},
	}
	for _, tt := range tests {
		got, err := idem.NaturalKey(tt.ns, tt.parts...)
		if err != nil || got != tt.want {
			t.Errorf("NaturalKey(%q, %q) = %q, %v; want %q", tt.ns, tt.parts, got, err, tt.want)
		}
	}
	for _, parts := range [][]string{nil, {"a", ""}} {
		if _, err := idem.NaturalKey("fn", parts...); !errors.Is(err, idem.ErrNoKey) {
			t.Errorf("NaturalKey(fn, %q): err %v, want idem.ErrNoKey", parts, err)
		}
	}
}

func TestClientKey(t *testing.T) {
	t.Parallel()
	k, err := idem.ClientKey("billing", "req-42")
	if err != nil || k != "billing#req-42" {
		t.Fatalf("got %q, %v", k, err)
	}
	if _, err := idem.ClientKey("billing", ""); !errors.Is(err, idem.ErrNoKey) {
		t.Fatalf("empty key: err %v, want idem.ErrNoKey", err)
	}
	a, _ := idem.ClientKey("fn-a", "req-42")
	b, _ := idem.ClientKey("fn-b", "req-42")
	if a == b {
		t.Fatal("two namespaces share a key")
	}
}

func TestLongKeysAreHashed(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", idem.MaxKeyBytes)
	a, err := idem.ClientKey("fn", long)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idem.ClientKey("fn", long+"x")
	if len(a) > idem.MaxKeyBytes || !strings.HasPrefix(string(a), "fn#sha256:") || a == b {
		t.Fatalf("long keys: %q and %q; want distinct hashed keys within %d bytes", a, b, idem.MaxKeyBytes)
	}
	c, _ := idem.ClientKey(strings.Repeat("ñ", idem.MaxKeyBytes), "x")
	if len(c) > idem.MaxKeyBytes || !utf8.ValidString(string(c)) {
		t.Fatalf("long namespace: %d bytes, valid UTF-8 %v", len(c), utf8.ValidString(string(c)))
	}
	short, _ := idem.ClientKey("fn", strings.Repeat("a", idem.MaxKeyBytes-3))
	if len(short) != idem.MaxKeyBytes || strings.Contains(string(short), "sha256") {
		t.Fatalf("a key of exactly %d bytes was changed: %q", idem.MaxKeyBytes, short)
	}
}

func TestJSONFingerprint(t *testing.T) {
	t.Parallel()
	a, err := idem.JSONFingerprint([]byte(`{"a":1,"b":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idem.JSONFingerprint([]byte(`{ "b":[1, 2], "a":1.0 }`))
	c, _ := idem.JSONFingerprint([]byte(`{"a":1,"b":[2,1]}`))
	if a != b || a == c {
		t.Fatalf("fingerprints %s %s %s; want the first two equal, the third different", a, b, c)
	}
	if _, err := idem.JSONFingerprint([]byte(`{`)); err == nil {
		t.Fatal("invalid JSON has a fingerprint")
	}
	sub, _ := idem.JSONFingerprint([]byte(`{"a":1,"trace":"x"}`), "a")
	sub2, _ := idem.JSONFingerprint([]byte(`{"a":1,"trace":"y"}`), "a")
	if sub != sub2 {
		t.Fatal("a field outside the subset changed the fingerprint")
	}
	if idem.Fingerprint([]byte("x")) == idem.Fingerprint([]byte("y")) {
		t.Fatal("byte fingerprints collide")
	}
}

// A key without a namespace could collide with another function's.
func TestKeysNeedANamespace(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func() (idem.Key, error){
		"client":  func() (idem.Key, error) { return idem.ClientKey("", "x") },
		"natural": func() (idem.Key, error) { return idem.NaturalKey("", "x") },
		"json":    func() (idem.Key, error) { return idem.JSONKey("", []byte(`{"a":1}`), "a") },
	} {
		if k, err := f(); !errors.Is(err, idem.ErrNoKey) || k != "" {
			t.Errorf("%s key with an empty namespace: %q, %v; want ErrNoKey", name, k, err)
		}
	}
}
