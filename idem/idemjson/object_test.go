package idemjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

func TestParseJSONObject(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`[1,2]`:           "not a JSON object but an array",
		`"text"`:          "not a JSON object but a string",
		`{"a":1} {"b":2}`: "data after the top-level value",
		`{"a":1}}`:        "data after the top-level value",
		`{"a":`:           "not valid JSON",
		``:                "not valid JSON",
		`not json at all`: "not valid JSON",
	} {
		if _, err := idemjson.Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseJSONObject(%q) = %v, want an error saying %q", body, err, want)
		}
	}
}

func TestJSONObjectField(t *testing.T) {
	t.Parallel()
	obj, err := idemjson.Parse([]byte(`{"id":"a","n":1.50,"doc":{"id":7,"v":null},"doc.id":"exact","none":null,"list":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"id":      "a",
		"n":       json.Number("1.50"), // spelled as sent
		"doc.id":  json.Number("7"),    // a dot separates names
		`doc\.id`: "exact",             // unless escaped
		"doc..id": nil,                 // not a field
		"doc.v":   nil,
		"none":    nil,
		"missing": nil,
		"list.0":  nil, // paths go through objects only
		"id.x":    nil,
	} {
		got, ok := obj.Field(path)
		if got != want || ok != (want != nil) {
			t.Errorf("Field(%q) = %v, %v; want %v, %v", path, got, ok, want, want != nil)
		}
	}
	nested, _ := idemjson.Parse([]byte(`{"doc":{"id":7}}`))
	if v, ok := nested.Field("doc.id"); !ok || v != json.Number("7") {
		t.Errorf(`Field("doc.id") = %v, %v; want 7 through the path`, v, ok)
	}
}

// Hash is the hash JSONFingerprint and JSONKey make of the same fields.
func TestJSONObjectHash(t *testing.T) {
	t.Parallel()
	body := []byte(`{"prompt":"hi","model":"m","n":1e2,"extra":true}`)
	obj, err := idemjson.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := obj.Hash("prompt", "model", "prompt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := idemjson.Fingerprint(body, "model", "prompt")
	if err != nil || got != want {
		t.Errorf("Hash = %s, JSONFingerprint = %s, %v", got, want, err)
	}
	same, _ := idemjson.Parse([]byte(`{ "model" : "m", "prompt" : "hi", "n": 100 }`))
	if h, _ := same.Hash("model", "prompt"); h != got {
		t.Errorf("Hash of the same fields, reordered and spaced = %s, want %s", h, got)
	}
	if _, err := obj.Hash("missing"); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Hash of an absent field = %v, want an error naming it", err)
	}
	if _, err := obj.Hash(); err == nil {
		t.Error("Hash of no fields: no error")
	}
}

func TestCheckField(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"id", "doc.id", `order\.id`, `a\\b`, `a\\.b`, "é.😀"} {
		if err := idemjson.CheckField(f); err != nil {
			t.Errorf("CheckField(%q) = %v", f, err)
		}
	}
	for _, f := range []string{"", ".", "a.", ".a", "a..b", `a\`, `a\b`, `a\\\`, "\xff"} {
		if err := idemjson.CheckField(f); err == nil {
			t.Errorf("CheckField(%q): no error", f)
		}
		if _, err := idemjson.Key("fn", []byte(`{"a":1}`), "a", f); !errors.Is(err, idem.ErrNoKey) {
			t.Errorf("JSONKey with field %q: %v, want ErrNoKey", f, err)
		}
	}
	obj, _ := idemjson.Parse(`{"a.b":{"c\\d":1},"x\\":{"y":2}}`)
	for name, path := range map[string][]string{"1": {"a.b", `c\d`}, "2": {`x\`, "y"}} {
		field := idemjson.EscapeField(path[0]) + "." + idemjson.EscapeField(path[1])
		if v, ok := obj.Field(field); !ok || v != json.Number(name) {
			t.Errorf("Field(%q) = %v, %v; want %s", field, v, ok, name)
		}
	}
}

// JSONObject.Key is JSONKey from one decode; an absent field says how to
// reach a member named with dots.
func TestJSONObjectKey(t *testing.T) {
	t.Parallel()
	body := `{"doc":{"id":4471},"model.name":"m"}`
	obj, err := idemjson.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	a, errA := obj.Key("fn", `model\.name`, "doc.id")
	b, errB := idemjson.Key("fn", []byte(body), "doc.id", `model\.name`)
	if errA != nil || errB != nil || a != b || !strings.HasPrefix(string(a), `fn#json(doc.id,model\.name):sha256:`) {
		t.Errorf("keys %s, %s (%v, %v); want one key", a, b, errA, errB)
	}
	_, err = obj.Key("fn", "model.name")
	if !errors.Is(err, idem.ErrNoKey) || !strings.Contains(err.Error(), `model\\.name`) {
		t.Errorf("key of a member named with a dot, unescaped: %v; want ErrNoKey naming the escape", err)
	}
	if _, err := obj.Key("", "doc.id"); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("key without a namespace: %v", err)
	}
}
