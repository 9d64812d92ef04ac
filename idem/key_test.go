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
