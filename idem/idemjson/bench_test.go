package idemjson_test

import (
	"testing"

	"github.com/idemq/idemq/idem/idemjson"
)

// benchBodies are a message as the benchmarks send it and a larger one
// with nested objects, numbers, escapes and non-ASCII text.
var benchBodies = []struct{ name, body string }{
	{"small", `{"idempotency_key":"k-000042","model":"bench-model","prompt":"Summarise document k-000042 in three sentences."}`},
	{"nested", `{"idempotency_key":"k-000042","model":"bench-model","temperature":0.7,"max_tokens":1024,
	 "document":{"id":9007199254740993,"version":9,"title":"Ünïcødé \"quoted\" title","tags":["a","b","c"]},
	 "messages":[{"role":"system","content":"You are terse.\nAnswer in French."},
	 {"role":"user","content":"Résume le document 4471 en trois phrases, s'il te plaît. 😀"}],
	 "trace":{"id":"0af7651916cd43dd8448eb211c80319c","sampled":true,"at":1767225600000,"cost":1.25e-3}}`},
}

// BenchmarkJSONFingerprint is the handler's default payload fingerprint:
// the whole body's canonical form.
func BenchmarkJSONFingerprint(b *testing.B) {
	for _, bb := range benchBodies {
		b.Run(bb.name, func(b *testing.B) {
			body := []byte(bb.body)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := idemjson.Fingerprint(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKeyField is the handler's default key: one decode, one field.
func BenchmarkKeyField(b *testing.B) {
	for _, bb := range benchBodies {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				obj, err := idemjson.Parse(bb.body)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := obj.Field("idempotency_key"); !ok {
					b.Fatal("no key")
				}
			}
		})
	}
}

// BenchmarkJSONKey hashes two fields, one nested in the larger body.
func BenchmarkJSONKey(b *testing.B) {
	fields := map[string][]string{"small": {"model", "prompt"}, "nested": {"model", "document"}}
	for _, bb := range benchBodies {
		b.Run(bb.name, func(b *testing.B) {
			body := []byte(bb.body)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := idemjson.Key("fn", body, fields[bb.name]...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
