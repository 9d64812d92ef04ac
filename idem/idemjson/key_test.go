package idemjson_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

func TestKeyIgnoresEncoding(t *testing.T) {
	t.Parallel()
	same := []string{
		`{"model":"m1","prompt":"hi","n":1}`,
		`{ "prompt" : "hi", "model":"m1", "n": 1.0 , "extra": true}`,
		`{"n":1e0,"prompt":"h\u0069","model":"m1"}`,
	}
	var want idem.Key
	for i, body := range same {
		k, err := idemjson.Key("fn", []byte(body), "model", "prompt", "n")
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
	other, _ := idemjson.Key("fn", []byte(`{"model":"m1","prompt":"hi!","n":1}`), "model", "prompt", "n")
	if other == want {
		t.Fatal("a different prompt made the same key")
	}
}

func TestKeyErrors(t *testing.T) {
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
			k, err := idemjson.Key("fn", []byte(tt.body), tt.fields...)
			if !errors.Is(err, idem.ErrNoKey) {
				t.Fatalf("key %q, err %v; want idem.ErrNoKey", k, err)
			}
		})
	}
}

func TestKeyNestedField(t *testing.T) {
	t.Parallel()
	a, err := idemjson.Key("fn", []byte(`{"doc":{"id":4471,"v":9},"x":1}`), "doc.id")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idemjson.Key("fn", []byte(`{"x":2,"doc":{"v":10,"id":4471}}`), "doc.id")
	c, _ := idemjson.Key("fn", []byte(`{"doc":{"id":4472}}`), "doc.id")
	if a != b || a == c {
		t.Fatalf("nested keys: %s %s %s; want the first two equal and the third different", a, b, c)
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a, err := idemjson.Fingerprint([]byte(`{"a":1,"b":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idemjson.Fingerprint([]byte(`{ "b":[1, 2], "a":1.0 }`))
	c, _ := idemjson.Fingerprint([]byte(`{"a":1,"b":[2,1]}`))
	if a != b || a == c {
		t.Fatalf("fingerprints %s %s %s; want the first two equal, the third different", a, b, c)
	}
	if _, err := idemjson.Fingerprint([]byte(`{`)); err == nil {
		t.Fatal("invalid JSON has a fingerprint")
	}
	sub, _ := idemjson.Fingerprint([]byte(`{"a":1,"trace":"x"}`), "a")
	sub2, _ := idemjson.Fingerprint([]byte(`{"a":1,"trace":"y"}`), "a")
	if sub != sub2 {
		t.Fatal("a field outside the subset changed the fingerprint")
	}
}

func TestObjectNaturalValue(t *testing.T) {
	t.Parallel()
	obj, err := idemjson.Parse(`{"doc":{"id":4471},"v":9.0,"s":"a:b#c","flag":true,"list":[2, 1],"big":9007199254740993,"empty":"","nil":null}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fields []string
		want   string
	}{
		{[]string{"v", "doc.id"}, "doc.id:4471:v:9"},
		{[]string{"doc.id", "v", "v"}, "doc.id:4471:v:9"},
		{[]string{"s"}, "s:a%3Ab%23c"},
		{[]string{"flag", "list"}, "flag:true:list:[2,1]"},
		{[]string{"big"}, "big:9007199254740993"},
		{[]string{"doc"}, `doc:{"id"%3A4471}`},
	} {
		got, err := obj.NaturalValue(tc.fields...)
		if err != nil || got != tc.want {
			t.Errorf("NaturalValue(%q) = %q, %v; want %q", tc.fields, got, err, tc.want)
		}
	}
	for _, fields := range [][]string{{"missing"}, {"nil"}, {"empty"}, {}} {
		if _, err := obj.NaturalValue(fields...); !errors.Is(err, idem.ErrNoKey) {
			t.Errorf("NaturalValue(%q): %v, want ErrNoKey", fields, err)
		}
	}
}

// A key without a namespace could collide with another function's.
func TestKeyNeedsANamespace(t *testing.T) {
	t.Parallel()
	if k, err := idemjson.Key("", []byte(`{"a":1}`), "a"); !errors.Is(err, idem.ErrNoKey) || k != "" {
		t.Errorf("key with an empty namespace: %q, %v; want ErrNoKey", k, err)
	}
	obj, _ := idemjson.Parse(`{"a":1}`)
	if k, err := obj.Key("", "a"); !errors.Is(err, idem.ErrNoKey) || k != "" {
		t.Errorf("Object.Key with an empty namespace: %q, %v; want ErrNoKey", k, err)
	}
}
