package idemjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// text reports whether every string in v, member names too, is UTF-8.
func text(v any) bool {
	switch v := v.(type) {
	case string:
		return utf8.ValidString(v)
	case []any:
		for _, e := range v {
			if !text(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range v {
			if !utf8.ValidString(k) || !text(e) {
				return false
			}
		}
	}
	return true
}

// The decoder reads what encoding/json reads, and the same values but for
// strings that are not Unicode text; the canonical form of a whole body is
// its own canonical form. That it is RFC 8785's, but for numbers a float64
// would round, harness/internal/rfc8785 checks against an implementation
// of RFC 8785 (a requirement the root module does without).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"e\n\u00e9\ud83d\ude00"}}`,
		`[1.5e3, -0, "x\\y\"z\/", {}]`, `"\ud800"`, `"\udc00\ud800"`, "\"\xff\"", `{"a":1,"a":2}`,
		` 42 `, `{"é":1,"😀":2,"\uffff":3}`, `[9007199254740993, 1e400, 1e-400]`, `{"a":}`, `[1,]`, `01`, `"\u12"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d := decoder{s: string(body)}
		got, err := d.decode()
		if (err == nil) != json.Valid(body) {
			t.Fatalf("%q: decoder says %v, json.Valid %v", body, err, json.Valid(body))
		}
		if err != nil {
			return
		}
		if text(got) {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var want any
			if err := dec.Decode(&want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: decoded %#v, encoding/json %#v, %v", body, got, want, err)
			}
		}
		canon, err := canonicalJSON(body)
		if err != nil {
			return
		}
		if again, err := canonicalJSON(canon); err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("%q → %s → %s, %v: not its own canonical form", body, canon, again, err)
		}
	})
}
