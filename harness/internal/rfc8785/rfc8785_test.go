package rfc8785

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
)

// canonicalIs reports whether body's canonical form, as JSONFingerprint
// hashes it, is want.
func canonicalIs(t *testing.T, body []byte, want []byte) bool {
	t.Helper()
	got, err := idemjson.Fingerprint(body)
	if err != nil {
		t.Fatalf("%q: %v", body, err)
	}
	return got == idem.Fingerprint(want)
}

// ratOf is the exact value of a JSON number, or nil when its exponent is
// too large to compute with or it is no number big.Rat reads.
func ratOf(lit string) *big.Rat {
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimLeft(lit[i+1:], "+")); err != nil || e > 2000 || e < -2000 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil
	}
	return r
}

// Every float64, written in its shortest form in any layout, has the form
// RFC 8785 gives it: keys of such numbers are as they were.
func TestNumbersAFloatHoldsAreRFC8785s(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		want, err := jcs.NumberToJSON(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []byte{'e', 'E', 'f', 'g'} {
			lit := strconv.FormatFloat(f, format, -1, 64)
			if !canonicalIs(t, []byte(lit), []byte(want)) {
				t.Fatalf("%s: canonical form is not RFC 8785's %s", lit, want)
			}
		}
	}
	for _, i := range []int64{0, 1, -1, 1 << 53, -(1 << 53), 1<<53 - 1, 999999999999999, 1e15, 1e16} {
		want, _ := jcs.NumberToJSON(float64(i))
		if lit := strconv.FormatInt(i, 10); !canonicalIs(t, []byte(lit), []byte(want)) {
			t.Errorf("%s: canonical form is not RFC 8785's %s", lit, want)
		}
	}
}

// A number's canonical form is RFC 8785's whenever RFC 8785's has the
// number's exact value.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1e400", "9007199254740993", "0.1", "1.0000000000000000001", "123e-20", "1152921504606847000", "1.50", "1e21", "12.3e-8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		want := ratOf(lit)
		if want == nil || !strings.ContainsAny(lit[:1], "-0123456789") {
			return
		}
		rfc, err := jcs.Transform([]byte(lit))
		if err != nil {
			return // no JSON number, or beyond a float64
		}
		if r := ratOf(string(rfc)); r == nil || r.Cmp(want) != 0 {
			return // RFC 8785 rounds it: idem keeps the exact value
		}
		if _, err := idemjson.Fingerprint([]byte(lit)); err != nil {
			return
		}
		if !canonicalIs(t, []byte(lit), rfc) {
			t.Fatalf("%q: canonical form is not RFC 8785's %s, which has the same value", lit, rfc)
		}
	})
}

// The canonical form of a whole body is RFC 8785's, but for numbers a
// float64 would round; a body RFC 8785 refuses has no canonical form but
// for numbers beyond a float64, and one idem refuses is refused by RFC
// 8785 too, but for exponents too large to compute with.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":{"d":"e\n\u00e9\ud83d\ude00"}}`,
		`[1.5e3, -0, "x\\y\"z\/", {}]`, `"\ud800"`, `"\udc00\ud800"`, "\"\xff\"", `{"a":1,"a":2}`,
		` 42 `, `{"é":1,"😀":2,"\uffff":3}`, `[9007199254740993, 1e400, 1e-400]`, `{"a":}`, `[1,]`, `01`, `"\u12"`,
		`{"b":[],"a":{"z":"\u0000","y":"\u001f"}}`, `[true, false, null, "\t"]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fp, cerr := idemjson.Fingerprint(body)
		rfc, rerr := jcs.Transform(body)
		if cerr != nil {
			if rerr == nil && !strings.Contains(cerr.Error(), "exponent") {
				t.Fatalf("%q: refused (%v), RFC 8785 %s", body, cerr, rfc)
			}
			return
		}
		digits := bytes.ContainsAny(body, "0123456789")
		if rerr != nil {
			if !digits {
				t.Fatalf("%q: RFC 8785 refuses it (%v), idem does not", body, rerr)
			}
			return // a number beyond a float64
		}
		if !digits && fp != idem.Fingerprint(rfc) {
			t.Fatalf("%q: canonical form is not RFC 8785's %s", body, rfc)
		}
	})
}
