package idem_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

func TestStoredFingerprintIsShortAndStable(t *testing.T) {
	t.Parallel()
	long := idem.Fingerprint([]byte(`{"prompt":"hello"}`))
	short := storekit.StoredFingerprint(long)
	if len(long) != 71 || len(short) != 22 {
		t.Fatalf("long %q (%d bytes), short %q (%d bytes); want 71 and 22", long, len(long), short, len(short))
	}
	if again := storekit.StoredFingerprint(short); again != short {
		t.Errorf("StoredFingerprint(%q) = %q; want it unchanged", short, again)
	}
	// The short form is the digest's first 128 bits: its hex is the long
	// form's first 32 digits.
	if got := storekit.StoredFingerprint("sha256:" + strings.Repeat("0", 64)); got != strings.Repeat("A", 22) {
		t.Errorf("zero digest stored as %q; want 22 A's", got)
	}
	for _, other := range []string{
		"",
		"fp1",
		"sha256:" + strings.Repeat("a", 63), // too short
		"sha256:" + strings.Repeat("A", 64), // not Fingerprint's lowercase
		"sha256:" + strings.Repeat("g", 64), // not hex
		"md5:" + strings.Repeat("a", 32),    // another hash
		"sha256:" + strings.Repeat("a", 64) + "extra", // longer
	} {
		if got := storekit.StoredFingerprint(other); got != other {
			t.Errorf("StoredFingerprint(%q) = %q; want a fingerprint of another form kept as it is", other, got)
		}
	}
}

func TestSameFingerprint(t *testing.T) {
	t.Parallel()
	a := idem.Fingerprint([]byte("a"))
	b := idem.Fingerprint([]byte("b"))
	cases := []struct {
		x, y string
		want bool
	}{
		{a, a, true},
		{a, storekit.StoredFingerprint(a), true},
		{storekit.StoredFingerprint(a), a, true},
		{a, b, false},
		{storekit.StoredFingerprint(a), b, false},
		{storekit.StoredFingerprint(a), storekit.StoredFingerprint(b), false},
		{"fp1", "fp1", true},
		{"fp1", "fp2", false},
	}
	for _, c := range cases {
		if got := idem.SameFingerprint(c.x, c.y); got != c.want {
			t.Errorf("SameFingerprint(%q, %q) = %v; want %v", c.x, c.y, got, c.want)
		}
	}
}

// Do stores the short form, and a record an older version wrote with the
// long one still matches its payload (and only its payload): an upgrade
// neither replays another payload's result nor refuses a true duplicate.
func TestDoMatchesLongFingerprintsOfOlderRecords(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	ctx := context.Background()
	fp := idem.Fingerprint([]byte("payload"))

	if _, err := s.do(ctx, "k#new", fp, answer("v")); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := s.store.Get(ctx, "k#new")
	if err != nil || !ok {
		t.Fatalf("get: %v, %v", ok, err)
	}
	if rec.Fingerprint != storekit.StoredFingerprint(fp) {
		t.Errorf("stored fingerprint %q; want the short form %q", rec.Fingerprint, storekit.StoredFingerprint(fp))
	}
	r, err := s.do(ctx, "k#new", fp, func(context.Context) ([]byte, error) {
		t.Error("ran a completed key again")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "v" {
		t.Errorf("same payload over a short-form record: %+v, %v; want Replayed \"v\"", r, err)
	}

	// An older version's record: claimed and completed with the long form.
	now := s.Now()
	req := idem.ClaimRequest{Key: "k#old", Owner: "0123456789abcdef0123456789abcdef", Fingerprint: fp, Now: now, LeaseUntil: now.Add(60e9), ExpiresAt: now.Add(3600e9)}
	if c, err := s.store.Claim(ctx, req); err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	if err := s.store.Complete(ctx, idem.Completion{Key: "k#old", Owner: req.Owner, Result: []byte("old"), ExpiresAt: req.ExpiresAt}); err != nil {
		t.Fatal(err)
	}
	r, err = s.do(ctx, "k#old", fp, func(context.Context) ([]byte, error) {
		t.Error("ran a key an older version completed")
		return nil, nil
	})
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != "old" {
		t.Errorf("same payload over a long-form record: %+v, %v; want Replayed \"old\"", r, err)
	}
	for _, key := range []idem.Key{"k#old", "k#new"} {
		_, err := s.do(ctx, key, idem.Fingerprint([]byte("other payload")), answer("x"))
		if !errors.Is(err, idem.ErrPayloadMismatch) {
			t.Errorf("%s, another payload: err %v; want ErrPayloadMismatch", key, err)
		}
	}
}
