package idemjson_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// hashes returns what every key and fingerprint path makes of a body whose
// member "n" is the literal lit: JSONKey, JSONObject.Hash, JSONFingerprint
// of the field and of the whole body.
func hashes(t *testing.T, lit string) ([4]string, error) {
	t.Helper()
	body := []byte(`{"n":` + lit + `}`)
	var out [4]string
	k, err := idemjson.Key("fn", body, "n")
	if err != nil {
		return out, err
	}
	out[0] = string(k)
	obj, err := idemjson.Parse(body)
	if err != nil {
		return out, err
	}
	if out[1], err = obj.Hash("n"); err != nil {
		return out, err
	}
	if out[2], err = idemjson.Fingerprint(body, "n"); err != nil {
		return out, err
	}
	out[3], err = idemjson.Fingerprint(body)
	return out, err
}

// Two numbers are one request only when they are the same number: a
// float64 rounding never merges two, and spelling never splits one.
func TestNumbersAreExact(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"1", "1.0", "1e0", "10e-1", "0.1e1", "1.000", "1E+0"},
		{"100", "1e2", "1E+2", "100.0", "0.001e5"},
		{"0", "-0", "0.0", "-0.0", "0e10", "0E-7"},
		{"0.1", "1e-1", "0.10", "10e-2"},
		{"1e21", "1000000000000000000000", "10e20"},
		{"9007199254740993", "9007199254740993.0", "9.007199254740993e15", "90071992547409930e-1"},
		{"1e400", "10e399", "1.0e400"},
		{"-1e-400", "-0.1e-399"},
	}
	for _, lits := range same {
		want, err := hashes(t, lits[0])
		if err != nil {
			t.Errorf("%s: %v", lits[0], err)
			continue
		}
		for _, lit := range lits[1:] {
			if got, err := hashes(t, lit); err != nil || got != want {
				t.Errorf("%s and %s, one number, hash differently: %v, %v", lits[0], lit, got, err)
			}
		}
	}
	distinct := [][2]string{
		{"9007199254740993", "9007199254740992"},   // 2^53+1 rounds to 2^53
		{"-9007199254740993", "-9007199254740992"}, //
		{"18446744073709551615", "18446744073709551616"},
		{"1152921504606846976", "1152921504606847000"}, // 2^60, and what RFC 8785 writes for it
		{"1.0000000000000000001", "1"},
		{"0.1000000000000000055511151231257827021181583404541015625", "0.1"}, // the float64 nearest 0.1
		{"1e-400", "0"},
		{"1e400", "1e401"},
		{"123456789012345678901234567890", "123456789012345678901234567891"},
	}
	for _, p := range distinct {
		a, errA := hashes(t, p[0])
		b, errB := hashes(t, p[1])
		if errA != nil || errB != nil {
			t.Errorf("%s, %s: %v, %v; want both hashed exactly", p[0], p[1], errA, errB)
			continue
		}
		for i := range a {
			if a[i] == b[i] {
				t.Errorf("%s and %s hash alike (path %d): %s", p[0], p[1], i, a[i])
			}
		}
	}
}

// Keys and fingerprints of ordinary bodies are those RFC 8785 made before
// numbers were kept exact, so an upgrade moves no key. The sums were made
// by the code before that change.
func TestKeysOfOrdinaryBodiesStay(t *testing.T) {
	t.Parallel()
	body := []byte(`{"model":"m1","prompt":"Résume \"ceci\"\n\u0007 😀 \u2028","n":[1.5,1e21,1e-7,0.1,123456789,-0,100,1E2,5e-324,1.7976931348623157e308,9007199254740992],"doc":{"id":4471,"z":null,"a":true,"é":false,"\ud83d\ude00":1,"\uffff":2}}`)
	fp, err := idemjson.Fingerprint(body)
	if want := "sha256:99e3612fa0639b64a542953a3ed88bebcb6ef2844a4ea4fc767be462f2148704"; err != nil || fp != want {
		t.Errorf("whole-body fingerprint %s, %v; want %s", fp, err, want)
	}
	k, err := idemjson.Key("fn", body, "doc", "model", "n", "prompt")
	if want := "fn#json(doc,model,n,prompt):sha256:99e3612fa0639b64a542953a3ed88bebcb6ef2844a4ea4fc767be462f2148704"; err != nil || string(k) != want {
		t.Errorf("key %s, %v; want %s", k, err, want)
	}
	k, err = idemjson.Key("fn", body, "doc.id")
	if want := "fn#json(doc.id):sha256:5986c91ebdc64f70540752036bbcf862ef2fe205d53ec75e2ccd14ae93a04673"; err != nil || string(k) != want {
		t.Errorf("nested key %s, %v; want %s", k, err, want)
	}
	fp, err = idemjson.Fingerprint(body, "n", "prompt")
	if want := "sha256:11d29a130d3c6aadca1bd56fbcb7553fb51efd8095dfb2aa698b83d38b32153a"; err != nil || fp != want {
		t.Errorf("fields fingerprint %s, %v; want %s", fp, err, want)
	}
}

// A string that is not Unicode text (a lone surrogate escape, bytes that
// are not UTF-8) is refused where it is hashed, rather than read as U+FFFD
// and merged with every other such string.
func TestStringsAreExact(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`"\ud800"`, `"\udc00"`, `"a\ud83d"`, `"\ude00b"`, `"\ud800\ud800"`, "\"\xff\"", "\"\xed\xa0\x80\""} {
		body := []byte(`{"s":` + s + `,"ok":"x"}`)
		if k, err := idemjson.Key("fn", body, "s"); !errors.Is(err, idem.ErrNoKey) {
			t.Errorf("JSONKey of %s = %s, %v; want ErrNoKey", s, k, err)
		}
		if fp, err := idemjson.Fingerprint(body, "s"); err == nil {
			t.Errorf("JSONFingerprint of field %s = %s; want an error", s, fp)
		}
		if fp, err := idemjson.Fingerprint(body); err == nil {
			t.Errorf("JSONFingerprint of %s = %s; want an error", body, fp)
		}
		// Elsewhere in the body it is no concern of the key's.
		if _, err := idemjson.Key("fn", body, "ok"); err != nil {
			t.Errorf("JSONKey of another field beside %s: %v", s, err)
		}
	}
	// A member name is a string too.
	if k, err := idemjson.Key("fn", []byte(`{"o":{"\ud800":1}}`), "o"); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("JSONKey of an object with a lone surrogate member name = %s, %v; want ErrNoKey", k, err)
	}
	// A pair of escapes is one character, the same as written out.
	a, errA := idemjson.Key("fn", []byte(`{"s":"\ud83d\ude00"}`), "s")
	b, errB := idemjson.Key("fn", []byte(`{"s":"😀"}`), "s")
	c, errC := idemjson.Key("fn", []byte(`{"s":"\ufffd"}`), "s")
	if errA != nil || errB != nil || errC != nil || a != b || a == c {
		t.Errorf("keys %s %s %s (%v %v %v); want the first two equal, the third different", a, b, c, errA, errB, errC)
	}
}

// A member whose name holds a dot is not the nested path spelled alike:
// a body cannot steer itself onto another key by adding one.
func TestDottedMemberIsNotAPath(t *testing.T) {
	t.Parallel()
	k1, err := idemjson.Key("fn", []byte(`{"document":{"id":1}}`), "document.id")
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := idemjson.Key("fn", []byte(`{"document":{"id":2}}`), "document.id")
	steered, err := idemjson.Key("fn", []byte(`{"document":{"id":2},"document.id":1}`), "document.id")
	if err != nil || steered == k1 || steered != k2 {
		t.Errorf("document 2 with a member \"document.id\": 1 has key %s, %v; want document 2's %s, not document 1's", steered, err, k2)
	}
	if k, err := idemjson.Key("fn", []byte(`{"document.id":1}`), "document.id"); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("a member \"document.id\" alone gives key %s, %v; want ErrNoKey (the path is absent)", k, err)
	}
	obj, _ := idemjson.Parse(`{"a":{"b":{"c":1}},"a.b":{"c":2},"a.b.c":3}`)
	if v, _ := obj.Field("a.b.c"); v == nil || v.(interface{ String() string }).String() != "1" {
		t.Errorf(`Field("a.b.c") = %v, want 1 through the path`, v)
	}
}

// The fields' order is not part of the request: the key's label and its
// hash both take them sorted.
func TestFieldOrderDoesNotMatter(t *testing.T) {
	t.Parallel()
	body := []byte(`{"model":"m1","prompt":"hi","n":1}`)
	a, errA := idemjson.Key("fn", body, "model", "prompt", "n")
	b, errB := idemjson.Key("fn", body, "prompt", "n", "model", "n")
	if errA != nil || errB != nil || a != b {
		t.Errorf("keys %s, %s (%v, %v); want one key", a, b, errA, errB)
	}
	if want := "fn#json(model,n,prompt):sha256:"; len(a) < len(want) || string(a[:len(want)]) != want {
		t.Errorf("key %s; want it to start %s", a, want)
	}
}
