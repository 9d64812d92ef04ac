package idemtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Gzip is the gzip of b, as idem.Do stores a compressed result.
func Gzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodingCases are the cases of results stored encoded
// (idem.Completion.Encoding): the store keeps the encoding beside the
// result, in a place of its own, and gives it back.
var encodingCases = []testCase{
	{"BlobPointerRoundTrips", func(t *testing.T, b *bundle) {
		// A result offloaded to idem.Config.Blobs: the store keeps the
		// pointer and its encoding like any result.
		ctx := context.Background()
		ptr := []byte(`{"name":"0f/1e","size":20480,"sha256":"ab","encoding":"gzip"}`)
		owner := b.mustClaim(t, "t#blob", b.now, time.Minute)
		if err := b.store.Complete(ctx, idem.Completion{Key: "t#blob", Owner: owner, Result: ptr, Encoding: storekit.EncodingBlob, ExpiresAt: b.now.Add(2 * time.Hour)}); err != nil {
			t.Fatalf("complete with a blob pointer: %v", err)
		}
		c, _ := b.claim(t, "t#blob", b.now.Add(time.Hour), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if r := c.Record; r.Encoding != storekit.EncodingBlob || !bytes.Equal(r.Result, ptr) {
			t.Fatalf("record with encoding %q and result %q; want %q and %q", r.Encoding, r.Result, storekit.EncodingBlob, ptr)
		}
	}},
	{"CompressedResultRoundTrips", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		prose := Prose(8 << 10)
		gz := Gzip(t, prose)
		owner := b.mustClaim(t, "t#gzip", b.now, time.Minute)
		comp := idem.Completion{Key: "t#gzip", Owner: owner, Result: gz, Encoding: storekit.EncodingGzip, ExpiresAt: b.now.Add(2 * time.Hour)}
		if err := b.store.Complete(ctx, comp); err != nil {
			t.Fatalf("complete with a compressed result: %v", err)
		}
		if err := b.store.Complete(ctx, comp); err != nil {
			t.Fatalf("a retried complete (same owner, same compressed result) must succeed: %v", err)
		}
		raw := comp
		raw.Encoding = storekit.EncodingRaw
		wantLeaseLost(t, "the same bytes completed again as a raw result", b.store.Complete(ctx, raw), false)
		c, _ := b.claim(t, "t#gzip", b.now.Add(time.Hour), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		r := c.Record
		if r.Encoding != storekit.EncodingGzip || !bytes.Equal(r.Result, gz) || r.OmittedBytes != 0 {
			t.Fatalf("record with encoding %q, %d bytes stored, omitted %d; want %q and the %d bytes completed",
				r.Encoding, len(r.Result), r.OmittedBytes, storekit.EncodingGzip, len(gz))
		}
		if !r.ExpiresAt.Equal(b.now.Add(2 * time.Hour)) {
			t.Fatalf("expiry %s, want %s", r.ExpiresAt, b.now.Add(2*time.Hour))
		}
		if v, err := r.DecodedResult(0); err != nil || !bytes.Equal(v, prose) {
			t.Fatalf("decoded: %d bytes, %v; want the %d bytes of the result", len(v), err, len(prose))
		}

		// A raw result retried with an encoding is another result too.
		owner = b.mustClaim(t, "t#plain", b.now, time.Minute)
		if err := b.complete("t#plain", owner, gz, b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		again := comp
		again.Key, again.Owner = "t#plain", owner
		wantLeaseLost(t, "raw bytes completed again as gzip", b.store.Complete(ctx, again), false)
		c, _ = b.claim(t, "t#plain", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if c.Record.Encoding != storekit.EncodingRaw || !bytes.Equal(c.Record.Result, gz) {
			t.Fatalf("record with encoding %q: want the raw result as completed, bytes and all", c.Record.Encoding)
		}
	}},
	{"TakeOverForgetsTheEncoding", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		gz := Gzip(t, Prose(4<<10))
		owner := b.mustClaim(t, "t#gzold", b.now, time.Minute)
		if err := b.store.Complete(ctx, idem.Completion{Key: "t#gzold", Owner: owner, Result: gz, Encoding: storekit.EncodingGzip, ExpiresAt: b.now.Add(10 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		c, fresh := b.claim(t, "t#gzold", b.now.Add(time.Hour), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
		if c.Previous == nil || c.Previous.Encoding != storekit.EncodingGzip || !bytes.Equal(c.Previous.Result, gz) {
			t.Fatalf("re-claim of an expired compressed record: previous %+v, want it with its encoding", c.Previous)
		}
		c, _ = b.claim(t, "t#gzold", b.now.Add(time.Hour+time.Second), time.Minute, time.Hour, "")
		wantState(t, c, inProgress)
		if c.Record.Encoding != storekit.EncodingRaw || len(c.Record.Result) != 0 {
			t.Fatalf("the new claim holds encoding %q and %d bytes of result: the old record's stuck", c.Record.Encoding, len(c.Record.Result))
		}
		if err := b.complete("t#gzold", fresh, []byte("new"), b.now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		c, _ = b.claim(t, "t#gzold", b.now.Add(time.Hour+time.Second), time.Minute, time.Hour, "")
		wantState(t, c, completed)
		if c.Record.Encoding != storekit.EncodingRaw || string(c.Record.Result) != "new" {
			t.Fatalf("the new owner's raw result reads with encoding %q and %q: the old record's encoding stuck", c.Record.Encoding, c.Record.Result)
		}
	}},
	{"DoCompressesLargeResults", func(t *testing.T, b *bundle) {
		ctx := context.Background()
		clock := idem.ClockFunc(func() time.Time { return b.now })
		// 1 MiB of prose compresses under every store's limit: stored, not
		// omitted.
		for _, size := range []int{100, idem.DefaultCompressAbove + 100, 64 << 10, 1 << 20} {
			key := idem.Key(fmt.Sprintf("t#prose%d", size))
			prose := Prose(size)
			work := func(context.Context) ([]byte, error) { return prose, nil }
			r, err := idem.Do(ctx, b.store, key, "", work, func(c *idem.Config) { c.Clock = clock })
			if err != nil || r.Outcome != idem.Executed || r.Omitted || !bytes.Equal(r.Value, prose) {
				t.Fatalf("%d bytes: %s, omitted %v, %d bytes, %v; want executed with the result", size, r.Outcome, r.Omitted, len(r.Value), err)
			}
			c, _ := b.claim(t, key, b.now, time.Minute, time.Hour, "")
			wantState(t, c, completed)
			stored := c.Record
			switch {
			case size <= idem.DefaultCompressAbove && (stored.Encoding != storekit.EncodingRaw || !bytes.Equal(stored.Result, prose)):
				t.Fatalf("%d bytes: stored with encoding %q, %d bytes; want the result as it is", size, stored.Encoding, len(stored.Result))
			case size > idem.DefaultCompressAbove && (stored.Encoding != storekit.EncodingGzip || len(stored.Result) >= size):
				t.Fatalf("%d bytes: stored with encoding %q, %d bytes; want it gzipped, smaller", size, stored.Encoding, len(stored.Result))
			}
			r, err = idem.Do(ctx, b.store, key, "", func(context.Context) ([]byte, error) {
				t.Error("the work ran again")
				return nil, nil
			}, func(c *idem.Config) { c.Clock = clock })
			if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, prose) {
				t.Fatalf("%d bytes: replay %s, %d bytes, %v; want the result as the work returned it", size, r.Outcome, len(r.Value), err)
			}
		}
	}},
}
