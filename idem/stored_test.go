package idem_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// StoredResult reads back what Do stored, in each form it stores it:
// raw, gzipped, offloaded to a blob store, omitted; and refuses an
// offloaded result whose object is gone.
func TestStoredResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	blobs := newMemBlobs()
	cfg := idem.Config{Blobs: blobs, OffloadAbove: 2000}
	for _, tc := range []struct {
		name  string
		value []byte
		enc   string
	}{
		{"raw", []byte("short"), storekit.EncodingRaw},
		{"gzip", bytes.Repeat([]byte("prose "), 200), storekit.EncodingGzip},
		{"blob", hexResult(8000), storekit.EncodingBlob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t)
			key := idem.Key("k#" + tc.name)
			if _, err := s.do(ctx, key, "", func(context.Context) ([]byte, error) { return tc.value, nil }, idem.WithBlobs(blobs), func(c *idem.Config) { c.OffloadAbove = 2000 }); err != nil {
				t.Fatal(err)
			}
			rec := s.record(t, key)
			if rec.Encoding != tc.enc {
				t.Fatalf("stored in encoding %q, want %q", rec.Encoding, tc.enc)
			}
			got, err := cfg.StoredResult(ctx, rec)
			if err != nil || !bytes.Equal(got, tc.value) {
				t.Errorf("StoredResult = %d bytes, %v; want the %d bytes stored", len(got), err, len(tc.value))
			}
		})
	}
	t.Run("omitted and in progress hold none", func(t *testing.T) {
		t.Parallel()
		for _, rec := range []idem.Record{
			{Status: idem.StatusCompleted, OmittedBytes: 10},
			{Status: idem.StatusInProgress},
		} {
			if got, err := cfg.StoredResult(ctx, rec); got != nil || err != nil {
				t.Errorf("StoredResult(%+v) = %q, %v; want nil, nil", rec, got, err)
			}
		}
	})
	t.Run("missing blob", func(t *testing.T) {
		t.Parallel()
		rec := idem.Record{Status: idem.StatusCompleted, Encoding: storekit.EncodingBlob, Result: []byte(`{"name":"gone","size":3,"sha256":"00"}`)}
		if _, err := cfg.StoredResult(ctx, rec); !errors.Is(err, idem.ErrUnreadableResult) {
			t.Errorf("StoredResult of a missing blob: %v, want ErrUnreadableResult", err)
		}
		if _, err := (idem.Config{}).StoredResult(ctx, rec); !errors.Is(err, idem.ErrUnreadableResult) {
			t.Errorf("StoredResult of a blob without a blob store: %v, want ErrUnreadableResult", err)
		}
	})
}
