package idemjson

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// ratOf is the exact value of a JSON number, or nil when its exponent is
// too large to compute with.
func ratOf(t *testing.T, lit string) *big.Rat {
	t.Helper()
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimLeft(lit[i+1:], "+")); err != nil || e > 2000 || e < -2000 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", lit)
	}
	return r
}

// checkNumber checks the number rules on one literal: the canonical form
// has the literal's exact value and is its own canonical form. That it is
// RFC 8785's form whenever RFC 8785's has the same value,
// harness/internal/rfc8785 checks.
func checkNumber(t *testing.T, lit string) {
	t.Helper()
	got, err := appendNumber(nil, lit)
	if err != nil {
		if err == errExponent {
			return
		}
		t.Fatalf("%q: %v", lit, err)
	}
	if again, err := appendNumber(nil, string(got)); err != nil || string(again) != string(got) {
		t.Errorf("%q → %s → %s, %v: not its own canonical form", lit, got, again, err)
	}
	want := ratOf(t, lit)
	if want == nil {
		return
	}
	r := ratOf(t, string(got))
	if r == nil {
		return
	}
	if r.Cmp(want) != 0 {
		t.Errorf("%q → %s: another value", lit, got)
	}
}

func TestNumberForms(t *testing.T) {
	t.Parallel()
	for lit, want := range map[string]string{
		"0": "0", "-0": "0", "0.000e-9": "0", "-0e99999999999999999999": "0",
		"1": "1", "1.50": "1.5", "-1.50e1": "-15", "100": "100", "1e2": "100",
		"1e20": "100000000000000000000", "1e21": "1e+21", "123e19": "1.23e+21",
		"0.000001": "0.000001", "1e-7": "1e-7", "0.00000123": "0.00000123", "12.3e-8": "1.23e-7",
		"9007199254740993": "9007199254740993", "9.007199254740993e15": "9007199254740993",
		"1152921504606846976": "1152921504606846976", "1.0000000000000000001": "1.0000000000000000001",
		"1e400": "1e+400", "-1e-400": "-1e-400", "12345678901234567890123": "1.2345678901234567890123e+22",
		"5e-324": "5e-324", "1e000000000000000000000000000001": "10",
	} {
		got, err := appendNumber(nil, lit)
		if err != nil || string(got) != want {
			t.Errorf("%s → %s, %v; want %s", lit, got, err, want)
		}
		checkNumber(t, lit)
	}
	for _, lit := range []string{"", "-", "01", "1.", ".1", "1e", "1e+", "+1", "0x1", "1_0", "Infinity", "NaN", "1 "} {
		if got, err := appendNumber(nil, lit); err != errNotNumber {
			t.Errorf("%q → %s, %v; want errNotNumber", lit, got, err)
		}
	}
	if got, err := appendNumber(nil, "1e1000000000000000000"); err != errExponent {
		t.Errorf("an exponent of 19 digits → %s, %v; want errExponent", got, err)
	}
}

func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1e400", "9007199254740993", "0.1", "1.0000000000000000001", "123e-20", "1152921504606847000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if lit == "" || lit[0] != '-' && (lit[0] < '0' || lit[0] > '9') {
			return
		}
		d := decoder{s: lit}
		if _, err := d.number(); err != nil || d.i != len(lit) {
			return
		}
		checkNumber(t, lit)
	})
}

func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	names := []string{"", "a", "b", "ab", "é", "\u00ff", "\u0100", "\ue000", "\uffff", "\U00010000", "😀", "😁", "a😀", "a\uffff", "\ud7ff"}
	for _, a := range names {
		for _, b := range names {
			want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
			if got := compareUTF16(a, b); got != want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
