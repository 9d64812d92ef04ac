package idem_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

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
	long := strings.Repeat("é", idem.MaxValueBytes/2) // the longest value the key rule takes; with "fn#", over MaxKeyBytes
	a, err := idem.ClientKey("fn", long)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := idem.ClientKey("fn", long[:len(long)-2]+"x")
	if len(a) > idem.MaxKeyBytes || !strings.HasPrefix(string(a), "fn#sha256:") || a == b {
		t.Fatalf("long keys: %q and %q; want distinct hashed keys within %d bytes", a, b, idem.MaxKeyBytes)
	}
	c, _ := idem.ClientKey(strings.Repeat("ñ", idem.MaxValueBytes/2), strings.Repeat("x", idem.MaxValueBytes))
	if len(c) > idem.MaxKeyBytes || !utf8.ValidString(string(c)) {
		t.Fatalf("long namespace: %d bytes, valid UTF-8 %v", len(c), utf8.ValidString(string(c)))
	}
	sc, _ := idem.ScopedKey(strings.Repeat("ñ", idem.MaxValueBytes/2), "acme", strings.Repeat("x", idem.MaxValueBytes))
	if len(sc) > idem.MaxKeyBytes || !utf8.ValidString(string(sc)) || sc == c {
		t.Fatalf("long scoped key: %d bytes, valid UTF-8 %v, the same as the unscoped key: %v", len(sc), utf8.ValidString(string(sc)), sc == c)
	}
	short, _ := idem.ClientKey("fn", strings.Repeat("a", idem.MaxKeyBytes-3))
	if len(short) != idem.MaxKeyBytes || strings.Contains(string(short), "sha256") {
		t.Fatalf("a key of exactly %d bytes was changed: %q", idem.MaxKeyBytes, short)
	}
}

// A key without a namespace could collide with another function's.
func TestKeysNeedANamespace(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func() (idem.Key, error){
		"client":  func() (idem.Key, error) { return idem.ClientKey("", "x") },
		"natural": func() (idem.Key, error) { return idem.NaturalKey("", "x") },
	} {
		if k, err := f(); !errors.Is(err, idem.ErrNoKey) || k != "" {
			t.Errorf("%s key with an empty namespace: %q, %v; want ErrNoKey", name, k, err)
		}
	}
}

func TestNaturalValue(t *testing.T) {
	t.Parallel()
	if v, err := idem.NaturalValue("a:b", "c"); err != nil || v != "a%3Ab:c" {
		t.Errorf("NaturalValue parts = %q, %v", v, err)
	}
	k, _ := idem.NaturalKey("ns", "a:b", "c")
	if k != "ns#a%3Ab:c" {
		t.Errorf("NaturalKey = %q", k)
	}
	if _, err := idem.NaturalValue("a", ""); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("NaturalValue with an empty part: %v, want ErrNoKey", err)
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	if idem.Fingerprint([]byte("x")) == idem.Fingerprint([]byte("y")) {
		t.Fatal("byte fingerprints collide")
	}
	if fp := idem.Fingerprint(nil); len(fp) != 71 || fp[:7] != "sha256:" {
		t.Fatalf("Fingerprint(nil) = %q, want sha256: and 64 hex digits", fp)
	}
}

// The key rule: every key made is text a store keeps, a terminal prints
// as it is and JSON and URLs give back unchanged.
func TestKeyRule(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"k", "req-42", "é", "a:b#c%d", strings.Repeat("x", idem.MaxValueBytes), "\u202e", "..", "k k"} {
		if err := idem.CheckValue(v); err != nil {
			t.Errorf("CheckValue(%q) = %v, want nil", v, err)
		}
		if _, err := idem.ClientKey("ns", v); err != nil {
			t.Errorf("ClientKey(ns, %q) = %v, want nil", v, err)
		}
	}
	for _, v := range []string{"\x00", "a\nb", "\x1b[2J", "\x7f", "\u0085", "\xff", "\xc0\xaf", strings.Repeat("x", idem.MaxValueBytes+1)} {
		for name, f := range map[string]func() (idem.Key, error){
			"CheckValue":        func() (idem.Key, error) { return "", idem.CheckValue(v) },
			"ClientKey":         func() (idem.Key, error) { return idem.ClientKey("ns", v) },
			"NaturalKey":        func() (idem.Key, error) { return idem.NaturalKey("ns", "a", v) },
			"ScopedKey's key":   func() (idem.Key, error) { return idem.ScopedKey("ns", "acme", v) },
			"ScopedKey's scope": func() (idem.Key, error) { return idem.ScopedKey("ns", v, "k") },
			"the namespace":     func() (idem.Key, error) { return idem.ClientKey(v, "k") },
		} {
			if k, err := f(); !errors.Is(err, idem.ErrBadKey) || k != "" {
				t.Errorf("%s of %q: %q, %v; want idem.ErrBadKey", name, v, k, err)
			}
		}
	}
	if err := idem.CheckValue(""); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("CheckValue(\"\") = %v, want idem.ErrNoKey", err)
	}
}

// A scoped key is never a raw key of any namespace: caller acme's "k"
// is not the raw key "acme:k", nor any other raw or natural key.
func TestScopedKeysAreApart(t *testing.T) {
	t.Parallel()
	scoped, err := idem.ScopedKey("ns", "acme", "k")
	if err != nil {
		t.Fatal(err)
	}
	raws := []idem.Key{}
	for _, raw := range []string{"acme:k", "acme#k", ":acme#k", "acme%3Ak", "k"} {
		k, err := idem.ClientKey("ns", raw)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, k)
	}
	for _, ns := range []string{"ns:acme", "ns", "ns:acme#"} {
		k, _ := idem.ClientKey(ns, "k")
		raws = append(raws, k)
	}
	nat, _ := idem.NaturalKey("ns", "acme", "k")
	raws = append(raws, nat)
	for _, r := range raws {
		if r == scoped {
			t.Errorf("the raw key %q is the scoped key of (ns, acme, k)", r)
		}
	}
	other, _ := idem.ScopedKey("ns", "acme:x", "k")
	again, _ := idem.ScopedKey("ns", "acme", "x:k")
	if other == again {
		t.Errorf("(acme:x, k) and (acme, x:k) share the scoped key %q", other)
	}
	for _, tt := range []struct {
		key              idem.Key
		ns, scope, value string
		in               bool
	}{
		{scoped, "ns", "acme", "k", true},
		{raws[0], "ns", "", "acme:k", true},
		{nat, "ns", "", "acme:k", true},
	} {
		ns, scope, value := tt.key.Parts()
		if ns != tt.ns || scope != tt.scope || value != tt.value || tt.key.InNamespace("ns") != tt.in || tt.key.InNamespace("n") {
			t.Errorf("%q.Parts() = %q, %q, %q; InNamespace(ns) %v", tt.key, ns, scope, value, tt.key.InNamespace("ns"))
		}
	}
}
