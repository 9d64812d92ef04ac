package idem_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
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
		if _, err := idem.ParseJSONObject([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseJSONObject(%q) = %v, want an error saying %q", body, err, want)
		}
	}
}

func TestJSONObjectField(t *testing.T) {
	t.Parallel()
	obj, err := idem.ParseJSONObject([]byte(`{"id":"a","n":1.50,"doc":{"id":7,"v":null},"doc.id":"exact","none":null,"list":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"id":      "a",
		"n":       json.Number("1.50"), // spelled as sent
		"doc.id":  "exact",             // the exact member name wins over the path
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
	nested, _ := idem.ParseJSONObject([]byte(`{"doc":{"id":7}}`))
	if v, ok := nested.Field("doc.id"); !ok || v != json.Number("7") {
		t.Errorf(`Field("doc.id") = %v, %v; want 7 through the path`, v, ok)
	}
}

// Hash is the hash JSONFingerprint and JSONKey make of the same fields.
func TestJSONObjectHash(t *testing.T) {
	t.Parallel()
	body := []byte(`{"prompt":"hi","model":"m","n":1e2,"extra":true}`)
	obj, err := idem.ParseJSONObject(body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := obj.Hash("prompt", "model", "prompt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := idem.JSONFingerprint(body, "model", "prompt")
	if err != nil || got != want {
		t.Errorf("Hash = %s, JSONFingerprint = %s, %v", got, want, err)
	}
	same, _ := idem.ParseJSONObject([]byte(`{ "model" : "m", "prompt" : "hi", "n": 100 }`))
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
