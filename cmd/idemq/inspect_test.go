package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

func TestInspect(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		owner := b.claim(t, "doc-1", b.now, 90*time.Second)
		r := b.run(t, nil, "inspect", "doc-1")
		if r.code != exitOK {
			t.Fatalf("inspect of a claimed key: exit %d", r.code)
		}
		for _, want := range []string{"summarise#doc-1", "INPROGRESS", owner, "left (until", "none yet", "fp-summarise#doc-1"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("inspect of a claim does not say %q", want)
			}
		}

		b.complete(t, "doc-2", []byte("hello"), storekit.EncodingRaw, time.Hour)
		b.complete(t, "doc-3", []byte("\x1f\x8bgzipped"), storekit.EncodingGzip, time.Hour)
		b.complete(t, "doc-4", []byte(`{"name":"ab12/owner","size":70000,"sha256":"00","encoding":"gzip"}`), storekit.EncodingBlob, time.Hour)
		omitOwner := b.claim(t, "doc-5", b.now, time.Minute)
		if err := b.store.Complete(t.Context(), idem.Completion{Key: key("doc-5"), Owner: omitOwner, OmittedBytes: 812345, ExpiresAt: b.now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		b.env["IDEMQ_BLOB_BUCKET"] = "results"
		for k, want := range map[string]view{
			"doc-2": {Status: "COMPLETED", Stored: "inline", ResultBytes: 5},
			"doc-3": {Status: "COMPLETED", Stored: "gzip", ResultBytes: 9},
			"doc-4": {Status: "COMPLETED", Stored: "blob", ResultBytes: 70000, Blob: "s3://results/idemq/ab12/owner"},
			"doc-5": {Status: "COMPLETED", Stored: "omitted", ResultBytes: 812345},
		} {
			r := b.run(t, nil, "inspect", k, "--json")
			var got view
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitOK {
				t.Fatalf("inspect --json %s: exit %d, %v", k, r.code, err)
			}
			if got.Key != string(key(k)) || got.Status != want.Status || got.Stored != want.Stored || got.ResultBytes != want.ResultBytes || got.Blob != want.Blob {
				t.Errorf("inspect %s: %+v, want %+v", k, got, want)
			}
			if got.Expired || got.LeaseUntil != nil {
				t.Errorf("inspect %s: a live COMPLETED record shows expired %v, lease %v", k, got.Expired, got.LeaseUntil)
			}
		}
		if r := b.run(t, nil, "inspect", "doc-4"); !strings.Contains(r.stdout, "blob: 70000 bytes in s3://results/idemq/ab12/owner") {
			t.Errorf("inspect of an offloaded result does not name its object")
		}

		// --raw takes the stored key as it is; without it the namespace
		// is put before the key, so the stored key is not found.
		if r := b.run(t, nil, "inspect", "--raw", "summarise#doc-2"); r.code != exitOK || !strings.Contains(r.stdout, "inline: 5 bytes") {
			t.Errorf("inspect --raw of the stored key: exit %d", r.code)
		}
		if r := b.run(t, nil, "inspect", "summarise#doc-2"); r.code != exitFailed {
			t.Errorf("inspect of a key that is not a client's: exit %d, want %d (no record)", r.code, exitFailed)
		}
		if r := b.run(t, nil, "inspect", "never"); r.code != exitFailed || !strings.Contains(r.stderr, "no record") {
			t.Errorf("inspect of an absent key: exit %d, want %d saying no record", r.code, exitFailed)
		}
	})
}

// A lease that passed, and a record that expired, say so.
func TestInspectPassed(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "stopped", b.now.Add(-10*time.Minute), time.Minute)
		r := b.run(t, nil, "inspect", "stopped", "--json")
		var got view
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatal(err)
		}
		if !got.LeasePassed || got.Expired {
			t.Errorf("a claim 10 min old with a 1 min lease and a 1 h expiry: lease passed %v, expired %v", got.LeasePassed, got.Expired)
		}
		if b.env["IDEMQ_STORE"] == "redis" {
			return // Redis deletes a record when it expires
		}
		b.claim(t, "old", b.now.Add(-2*time.Hour), time.Minute)
		r = b.run(t, nil, "inspect", "old")
		if r.code != exitOK || !strings.Contains(r.stdout, "expired") || !strings.Contains(r.stdout, "the next claim replaces it") {
			t.Errorf("inspect of an expired record: exit %d, does not say it expired", r.code)
		}
	})
}
