package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"doc-4471":              "doc-4471",
		"summarise#doc 9:v%3A":  "summarise#doc 9:v%3A",
		"café 日本 😀":             "café 日本 😀",
		"\x1b[2J":               `\x1b[2J`,
		"a\rb\nc\td\x00e\x07":   `a\rb\nc\td\x00e\a`,
		"del\x7f":               `del\x7f`,
		"c1\u009b31m":           `c1\u009b31m`,
		"bidi\u202eevil\u2066":  `bidi\u202eevil\u2066`,
		"zero\u200bwidth\ufeff": `zero\u200bwidth\ufeff`,
		"line\u2028nbsp\u00a0":  `line\u2028nbsp\u00a0`,
		"bad\xffutf8\xc3":       `bad\xffutf8\xc3`,
		`back\slash`:            `back\\slash`,
		"back\\x1b is not \x1b": `back\\x1b is not \x1b`,
		"private\U000f0000":     `private\U000f0000`,
		"":                      "",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzEscape: escaped text is printable, and names one string: read back
// as a Go (or bash $'…') string, it is what was escaped.
func FuzzEscape(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got := escape(s)
		for _, r := range got {
			if r != ' ' && !unicode.IsPrint(r) {
				t.Fatalf("escape(%q) = %q holds %U", s, got, r)
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("escape(%q) = %q is not UTF-8", s, got)
		}
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(got, `"`, `\"`) + `"`)
		if err != nil || back != s {
			t.Fatalf("escape(%q) = %s reads back as %q, %v", s, got, back, err)
		}
		line, _ := json.Marshal(map[string]string{"key": s})
		safe := safeJSON(line)
		var m map[string]string
		if err := json.Unmarshal(safe, &m); err != nil {
			t.Fatalf("safeJSON(%s) = %s: %v", line, safe, err)
		}
		if utf8.ValidString(s) && m["key"] != s { // encoding/json writes each byte that is not UTF-8 as U+FFFD
			t.Fatalf("safeJSON(%s) = %s reads %q", line, safe, m["key"])
		}
		for _, r := range string(safe) {
			if r != ' ' && !unicode.IsPrint(r) {
				t.Fatalf("safeJSON(%s) = %s holds %U", line, safe, r)
			}
		}
	})
}

// hostile are keys, as anyone who can send a message can make them,
// that would act on the operator's terminal if printed as they are.
var hostile = []string{
	"clear\x1b[2J\x1b]0;pwned\x07", // clears the screen, retitles the window
	"cr\roverwritten",              // the line's start written over
	"nul\x00byte",
	"bad\xffutf8",
	"bidi\u202eevil", // the rest of the line reversed
	"c1\u009b31m",    // an 8-bit CSI
}

// raw are the bytes of hostile's dangerous characters: none may reach
// the terminal.
var raw = []string{"\x1b", "\r", "\x00", "\xff", "\u202e", "\u009b", "\x07"}

// wantNoRaw fails if out holds a raw dangerous character.
func wantNoRaw(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range raw {
		if strings.Contains(out, r) {
			t.Errorf("%s prints %q raw:\n%q", what, r, out)
		}
	}
}

// claimRaw claims the stored key k, as it is, with a lease that passed
// and a hostile owner; false when the store cannot hold the key: a
// PostgreSQL text column holds no NUL and no bytes that are not UTF-8
// (refused), and DynamoDB's SDK sends each such byte as U+FFFD (the
// record is another key's).
func (b *bundle) claimRaw(t *testing.T, k string) bool {
	t.Helper()
	if b.env["IDEMQ_STORE"] == "dynamodb" && !utf8.ValidString(k) {
		t.Logf("DynamoDB cannot hold key %q as it is", k)
		return false
	}
	at := b.now.Add(-10 * time.Minute)
	c, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: idem.Key(k), Owner: "owner\x1b[31m", Now: at,
		LeaseUntil: at.Add(time.Minute), ExpiresAt: b.now.Add(time.Hour), Fingerprint: "fp\x1b[0m"})
	if err != nil {
		t.Logf("the store refuses key %q: %v", k, err)
		return false
	}
	if !c.Claimed {
		t.Fatalf("claim %q: not claimed", k)
	}
	return true
}

// Every command escapes what it prints of a record: the listings, the
// detail, the prompts and the JSON.
func TestCommandsEscapeWhatTheyPrint(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		var keys []string
		for _, k := range hostile {
			if k := namespace + "#" + k; b.claimRaw(t, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) < 3 || (b.env["IDEMQ_STORE"] == "redis" && len(keys) != len(hostile)) {
			t.Fatalf("the store took %d of the %d hostile keys", len(keys), len(hostile))
		}
		for _, cmd := range [][]string{{"list"}, {"stuck"}} {
			r := b.run(t, nil, cmd...)
			wantNoRaw(t, cmd[0], r.stdout+r.stderr)
			for _, k := range keys {
				if !strings.Contains(r.stdout, escape(k)) {
					t.Errorf("%s does not show %q as %s", cmd[0], k, escape(k))
				}
			}
			if r.code != exitOK || !strings.Contains(r.stdout, `owner\x1b[31m`) {
				t.Errorf("%s: exit %d, the owner not escaped", cmd[0], r.code)
			}
		}
		r := b.run(t, nil, "list", "--json")
		wantNoRaw(t, "list --json", r.stdout)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != len(keys) {
			t.Fatalf("list --json: %d lines for %d records", len(lines), len(keys))
		}
		listed := map[string]bool{}
		for _, line := range lines {
			var v view
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("list --json: %q: %v", line, err)
			}
			if v.KeyEscaped != "" {
				listed[strconvUnescape(t, v.KeyEscaped)] = true
			} else {
				listed[v.Key] = true
			}
		}
		for _, k := range keys {
			if !listed[k] {
				t.Errorf("list --json: key %q is not named (neither key nor key_escaped)", k)
			}
		}

		for i, k := range keys {
			r := b.run(t, nil, "inspect", "--raw", k)
			wantNoRaw(t, "inspect", r.stdout+r.stderr)
			if r.code != exitOK || !strings.Contains(r.stdout, escape(k)) || !strings.Contains(r.stdout, `fp\x1b[0m`) {
				t.Errorf("inspect %q: exit %d, does not show the key as %s and the fingerprint escaped", k, r.code, escape(k))
			}
			verb := []string{"release", "purge"}[i%2]
			r = b.run(t, strings.NewReader("y\n"), verb, "--raw", k)
			wantNoRaw(t, verb, r.stdout+r.stderr)
			if r.code != exitOK || !strings.Contains(r.stdout, verb+" key "+escape(k)+"? [y/N]") || !strings.Contains(r.stdout, verb+"d: deleted") {
				t.Errorf("%s %q: exit %d, the prompt does not name the key as %s", verb, k, r.code, escape(k))
			}
			if _, ok, err := b.store.Get(context.Background(), idem.Key(k)); err != nil || ok {
				t.Errorf("%s %q: the record is still there (%v)", verb, k, err)
			}
			r = b.run(t, nil, "inspect", "--raw", k)
			wantNoRaw(t, "inspect of a key without a record", r.stdout+r.stderr)
		}
	})
}

// strconvUnescape reads escape's text back.
func strconvUnescape(t *testing.T, s string) string {
	t.Helper()
	back, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return back
}

// safeJSON leaves json.Marshal's output of printable text as it is.
func TestSafeJSONKeepsPrintableText(t *testing.T) {
	t.Parallel()
	line, _ := json.Marshal(map[string]string{"key": `café "quoted" \ back`, "k": "\x1b\u009b\u202e"})
	safe := safeJSON(line)
	if !bytes.Contains(safe, []byte(`café \"quoted\" \\ back`)) || !bytes.Contains(safe, []byte(`\u001b\u009b\u202e`)) {
		t.Errorf("safeJSON(%s) = %s", line, safe)
	}
}
