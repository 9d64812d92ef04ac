package idemjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/internal/fuzzreq"
)

// FuzzBody checks the decoder's properties on any body (its seed corpus
// is testdata/fuzz/FuzzBody, replayed by every go test; make fuzz
// explores):
//   - nothing panics, and the same body gives the same answer: Parse,
//     Fingerprint, Canonical, Key, NaturalValue, CheckUnambiguous;
//   - a body Fingerprint takes keeps its fingerprint, its canonical form
//     and every key when it is encoded again with members in another
//     order, other white space and every string spelled with escapes;
//     its canonical form is its own canonical form;
//   - a natural key value NaturalValue accepts is valid UTF-8;
//   - a member CheckUnambiguous passes is read by encoding/json as Parse
//     reads it.
func FuzzBody(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		obj, parseErr := idemjson.Parse(body)
		if obj2, err2 := idemjson.Parse(body); !sameErr(parseErr, err2) || !reflect.DeepEqual(obj, obj2) {
			t.Fatalf("Parse twice: %v / %v", parseErr, err2)
		}
		fp, fpErr := idemjson.Fingerprint(body)
		if fp2, err2 := idemjson.Fingerprint(body); fp != fp2 || !sameErr(fpErr, err2) {
			t.Fatalf("Fingerprint twice: %q %v / %q %v", fp, fpErr, fp2, err2)
		}
		canon, canonErr := idemjson.Canonical(body)
		if (canonErr == nil) != (fpErr == nil) {
			t.Fatalf("Canonical %v but Fingerprint %v", canonErr, fpErr)
		}
		fields := topFields(body)
		for _, f := range fields {
			a, b := idemjson.CheckUnambiguous(body, f), idemjson.CheckUnambiguous(body, f)
			if !sameErr(a, b) {
				t.Fatalf("CheckUnambiguous twice on %q: %v / %v", f, a, b)
			}
			if a != nil && parseErr == nil && !errors.Is(a, idemjson.ErrAmbiguous) {
				t.Fatalf("CheckUnambiguous on a body Parse takes, field %q: %v, not ErrAmbiguous", f, a)
			}
		}
		if parseErr == nil {
			for _, f := range fields {
				k1, e1 := obj.Key("ns", f)
				k2, e2 := idemjson.Key("ns", body, f)
				if k1 != k2 || !sameErr(e1, e2) {
					t.Fatalf("Key of %q: Object's %q %v, Key's %q %v", f, k1, e1, k2, e2)
				}
				v, err := obj.NaturalValue(f)
				if err == nil && !utf8.ValidString(v) {
					t.Fatalf("NaturalValue of %q: %q is not UTF-8", f, v)
				}
				agreesWithEncodingJSON(t, body, obj, f)
			}
		}
		if fpErr != nil {
			return
		}
		if again, err := idemjson.Canonical(canon); err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("canonical form %q is not its own: %q %v", canon, again, err)
		}
		other, err := fuzzreq.Reencode(body)
		if err != nil {
			t.Fatalf("a body Fingerprint takes, encoding/json cannot read: %v", err)
		}
		if fp2, err := idemjson.Fingerprint(other); err != nil || fp2 != fp {
			t.Fatalf("re-encoded as %q: fingerprint %q %v, want %q", other, fp2, err, fp)
		}
		if c2, err := idemjson.Canonical(other); err != nil || !bytes.Equal(c2, canon) {
			t.Fatalf("re-encoded as %q: canonical %q %v, want %q", other, c2, err, canon)
		}
		for _, f := range fields {
			k1, e1 := idemjson.Key("ns", body, f)
			k2, e2 := idemjson.Key("ns", other, f)
			if k1 != k2 || !sameErr(e1, e2) {
				t.Fatalf("re-encoded as %q: key of %q %q %v, want %q %v", other, f, k2, e2, k1, e1)
			}
			n1, e1 := mustParse(t, body).NaturalValue(f)
			n2, e2 := mustParse(t, other).NaturalValue(f)
			if n1 != n2 || !sameErr(e1, e2) {
				t.Fatalf("re-encoded as %q: natural value of %q %q %v, want %q %v", other, f, n2, e2, n1, e1)
			}
		}
	})
}

func mustParse(t *testing.T, body []byte) idemjson.Object {
	t.Helper()
	obj, err := idemjson.Parse(body)
	if err != nil {
		t.Fatalf("Parse %q: %v", body, err)
	}
	return obj
}

// sameErr reports whether a and b are both nil or say the same.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// topFields are fields naming the top-level members of body, when it is
// an object encoding/json reads (at most 8, in a fixed order), and a
// nested path through the first object-valued one.
func topFields(body []byte) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range m {
			if !yield(n) {
				return
			}
		}
	})
	var fields []string
	for _, n := range names[:min(len(names), 8)] {
		if n == "" {
			continue
		}
		f := idemjson.EscapeField(n)
		fields = append(fields, f)
		var inner map[string]json.RawMessage
		if len(fields) < 10 && json.Unmarshal(m[n], &inner) == nil {
			for in := range inner {
				if in != "" {
					fields = append(fields, f+"."+idemjson.EscapeField(in))
					break
				}
			}
		}
	}
	return fields
}

// plainName is a member name that can be a struct tag's.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_]{1,40}$`)

// agreesWithEncodingJSON: when CheckUnambiguous passes field f, a plain
// top-level member name whose value Parse reads as a UTF-8 string,
// encoding/json decoding body into a struct with that field reads the
// same string.
func agreesWithEncodingJSON(t *testing.T, body []byte, obj idemjson.Object, f string) {
	t.Helper()
	v, ok := obj.Field(f)
	s, isString := v.(string)
	if !ok || !isString || !utf8.ValidString(s) || !plainName.MatchString(f) || idemjson.CheckUnambiguous(body, f) != nil {
		return
	}
	typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`json:"` + f + `"`)}})
	p := reflect.New(typ)
	if err := json.Unmarshal(body, p.Interface()); err != nil {
		return // encoding/json refuses the body (a wrong type elsewhere): nothing read
	}
	if got := p.Elem().Field(0).String(); got != s {
		t.Fatalf("field %q passes CheckUnambiguous, but encoding/json reads %q where Parse reads %q", f, got, s)
	}
}

// The re-encoding the fuzz target relies on is another spelling of the
// same document.
func TestReencodeSpellsTheSameDocument(t *testing.T) {
	t.Parallel()
	body := []byte(`{"a":"caf\u00e9 😀","n":[1,2.50,-0,1e3],"o":{"z":null,"y":true},"d":"\u0000\"\\"}`)
	other, err := fuzzreq.Reencode(body)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other, body) || !strings.Contains(string(other), `\u00E9`) || !strings.Contains(string(other), `\ud83d\ude00`) {
		t.Fatalf("re-encoded as %s", other)
	}
	a, _ := idemjson.Fingerprint(body)
	b, err := idemjson.Fingerprint(other)
	if err != nil || a != b {
		t.Fatalf("%s: fingerprint %s %v, want %s", other, b, err, a)
	}
}
