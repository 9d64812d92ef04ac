package idem_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// stored runs work under key and returns what the store keeps for it.
func (s *setup) stored(t *testing.T, key idem.Key, value []byte, opts ...idem.Option) idem.Record {
	t.Helper()
	r, err := s.do(context.Background(), key, "", func(context.Context) ([]byte, error) { return value, nil }, opts...)
	if err != nil || r.Outcome != idem.Executed || !bytes.Equal(r.Value, value) {
		t.Fatalf("%s: %s, %d bytes, %v; want executed with the fresh result", key, r.Outcome, len(r.Value), err)
	}
	rec, ok := idemtest.MustGet(t, s.store, key)
	if !ok || rec.Status != idem.StatusCompleted {
		t.Fatalf("%s: record %+v, want COMPLETED", key, rec)
	}
	return rec
}

// replayed runs a duplicate of key, which must replay value.
func (s *setup) replayed(t *testing.T, key idem.Key, value []byte, opts ...idem.Option) {
	t.Helper()
	r, err := s.do(context.Background(), key, "", func(context.Context) ([]byte, error) {
		t.Errorf("%s: the work ran again", key)
		return nil, nil
	}, opts...)
	if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, value) {
		t.Fatalf("%s: %s, %d bytes, %v; want the %d bytes the work returned, replayed", key, r.Outcome, len(r.Value), err, len(value))
	}
}

// A result above the threshold is stored gzipped, one at or below it as
// it is; the work's caller and a duplicate only ever see the result.
func TestDoCompressesAboveTheThreshold(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	for _, tc := range []struct {
		key  idem.Key
		size int
		want string
	}{
		{"k#tiny", 100, storekit.EncodingRaw},
		{"k#at", idem.DefaultCompressAbove, storekit.EncodingRaw},
		{"k#above", idem.DefaultCompressAbove + 1, storekit.EncodingGzip},
		{"k#4k", 4 << 10, storekit.EncodingGzip},
		{"k#256k", 256 << 10, storekit.EncodingGzip},
	} {
		prose := idemtest.Prose(tc.size)
		rec := s.stored(t, tc.key, prose)
		if rec.Encoding != tc.want {
			t.Errorf("%s: %d bytes stored with encoding %q, want %q", tc.key, tc.size, rec.Encoding, tc.want)
		}
		switch tc.want {
		case storekit.EncodingRaw:
			if !bytes.Equal(rec.Result, prose) {
				t.Errorf("%s: stored %d bytes, want the result as it is", tc.key, len(rec.Result))
			}
		case storekit.EncodingGzip:
			if !bytes.Equal(rec.Result, idemtest.Gzip(t, prose)) || len(rec.Result) >= tc.size {
				t.Errorf("%s: stored %d bytes, want the gzip of the %d", tc.key, len(rec.Result), tc.size)
			}
		}
		s.replayed(t, tc.key, prose)
	}
}

// A result gzip cannot shrink, or shrinks by less than the marker costs,
// is stored as it is.
func TestDoStoresIncompressibleResultsRaw(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	random := randomBytes(4 << 10)
	if rec := s.stored(t, "k#random", random); rec.Encoding != storekit.EncodingRaw || !bytes.Equal(rec.Result, random) {
		t.Errorf("random bytes stored with encoding %q, %d bytes; want them as they are", rec.Encoding, len(rec.Result))
	}
	s.replayed(t, "k#random", random)
	// Compressed data compresses no further.
	gz := idemtest.Gzip(t, idemtest.Prose(64<<10))
	if rec := s.stored(t, "k#gz", gz); rec.Encoding != storekit.EncodingRaw || !bytes.Equal(rec.Result, gz) {
		t.Errorf("a gzip stream stored with encoding %q; want it as it is", rec.Encoding)
	}
	s.replayed(t, "k#gz", gz)
}

// CompressAbove -1 and CompressAbove n move the threshold; a record
// stored compressed still replays without compression.
func TestCompressionSettings(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	prose := idemtest.Prose(4 << 10)
	if rec := s.stored(t, "k#off", prose, func(c *idem.Config) { c.CompressAbove = -1 }); rec.Encoding != storekit.EncodingRaw {
		t.Errorf("WithoutCompression: stored with encoding %q", rec.Encoding)
	}
	if rec := s.stored(t, "k#high", prose, func(c *idem.Config) { c.CompressAbove = 8 << 10 }); rec.Encoding != storekit.EncodingRaw {
		t.Errorf("WithCompressAbove(8 KiB): 4 KiB stored with encoding %q", rec.Encoding)
	}
	if rec := s.stored(t, "k#low", idemtest.Prose(200), func(c *idem.Config) { c.CompressAbove = 100 }); rec.Encoding != storekit.EncodingGzip {
		t.Errorf("WithCompressAbove(100): 200 bytes stored with encoding %q", rec.Encoding)
	}
	s.stored(t, "k#on", prose)
	s.replayed(t, "k#on", prose, func(c *idem.Config) { c.CompressAbove = -1 })
	// A result larger than MaxDecodedBytes is never compressed: its replay
	// could not read it back.
	if rec := s.stored(t, "k#cap", prose, func(c *idem.Config) { c.MaxDecodedBytes = 1 << 10 }); rec.Encoding != storekit.EncodingRaw {
		t.Errorf("WithMaxDecodedBytes(1 KiB): 4 KiB stored with encoding %q", rec.Encoding)
	}
	s.replayed(t, "k#cap", prose, func(c *idem.Config) { c.MaxDecodedBytes = 1 << 10 })

	_, err := idem.NewConfig(func(c *idem.Config) { c.MaxDecodedBytes = -1 })
	if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Field != "MaxDecodedBytes" {
		t.Errorf("err %v, want an *idem.ConfigError naming MaxDecodedBytes", err)
	}
}

// The store's size limit applies to the stored bytes: a result over it
// that compresses under it is stored, one that does not is omitted, its
// size as the work returned it.
func TestDoSizeLimitCountsStoredBytes(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	s.store = must(memstore.New(memstore.WithMaxResultBytes(2 << 10)))
	prose := idemtest.Prose(4 << 10)
	if rec := s.stored(t, "k#fits", prose); rec.Encoding != storekit.EncodingGzip || rec.OmittedBytes != 0 {
		t.Fatalf("4 KiB of prose under a 2 KiB limit: record %+v, want it stored gzipped", rec)
	}
	s.replayed(t, "k#fits", prose)

	random := randomBytes(4 << 10)
	r, err := s.do(context.Background(), "k#over", "", func(context.Context) ([]byte, error) { return random, nil })
	if !errors.Is(err, idem.ErrResultTooLarge) || r.Outcome != idem.Executed || !r.Omitted || !bytes.Equal(r.Value, random) {
		t.Fatalf("4 KiB of random bytes under a 2 KiB limit: %s, omitted %v, %v; want executed, omitted, ErrResultTooLarge", r.Outcome, r.Omitted, err)
	}
	if rec, _ := idemtest.MustGet(t, s.store, "k#over"); rec.OmittedBytes != len(random) || rec.Encoding != storekit.EncodingRaw || len(rec.Result) != 0 {
		t.Fatalf("record %+v, want OmittedBytes %d, no result, no encoding", rec, len(random))
	}
}

// A record completed as an earlier version (or Powertools) writes one, with
// no encoding, replays its bytes as they are, even bytes that happen to be
// a gzip stream: the encoding is beside the result, never guessed from it.
func TestDoReplaysARecordWithoutEncoding(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	for key, result := range map[idem.Key][]byte{
		"k#text": idemtest.Prose(4 << 10),
		"k#gzip": idemtest.Gzip(t, []byte("a result that is itself a gzip stream")),
	} {
		owner := idemtest.MustClaim(t, s.store, key, s.Now())
		if err := s.store.Complete(context.Background(), idem.Completion{Key: key, Owner: owner, Result: result, ExpiresAt: s.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		s.replayed(t, key, result)
	}
}

// A stored result that cannot be decoded fails the replay with
// ErrUnreadableResult, never replays as empty or partial, and leaves the
// key completed.
func TestDoUnreadableResultFailsTheReplay(t *testing.T) {
	t.Parallel()
	prose := idemtest.Prose(8 << 10)
	gz := idemtest.Gzip(t, prose)
	flip := func(b []byte, i int) []byte {
		b = bytes.Clone(b)
		b[(i+len(b))%len(b)] ^= 0xff
		return b
	}
	// 17 MiB of zeros gzip to 17 KB: a zip bomb past the 16 MiB default.
	bomb := idemtest.Gzip(t, make([]byte, idem.DefaultMaxDecodedBytesForTest+1<<20))
	for _, tc := range []struct {
		name     string
		stored   []byte
		encoding string
		opts     []idem.Option
	}{
		{"not gzip", idemtest.Prose(2 << 10), storekit.EncodingGzip, nil},
		{"empty", []byte{}, storekit.EncodingGzip, nil},
		{"truncated", gz[:len(gz)/2], storekit.EncodingGzip, nil},
		{"no trailer", gz[:len(gz)-8], storekit.EncodingGzip, nil},
		{"bad checksum", flip(gz, -8), storekit.EncodingGzip, nil},
		{"bad length", flip(gz, -1), storekit.EncodingGzip, nil},
		{"corrupt data", flip(gz, len(gz)/2), storekit.EncodingGzip, nil},
		{"trailing bytes", append(bytes.Clone(gz), "more"...), storekit.EncodingGzip, nil},
		{"two members", append(bytes.Clone(gz), gz...), storekit.EncodingGzip, nil},
		{"zip bomb", bomb, storekit.EncodingGzip, nil},
		{"over the set limit", gz, storekit.EncodingGzip, []idem.Option{func(c *idem.Config) { c.MaxDecodedBytes = len(prose) - 1 }}},
		{"unknown encoding", gz, "zstd", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t)
			owner := idemtest.MustClaim(t, s.store, "k#bad", s.Now())
			if err := s.store.Complete(context.Background(), idem.Completion{
				Key: "k#bad", Owner: owner, Result: tc.stored, Encoding: tc.encoding, ExpiresAt: s.Now().Add(time.Hour),
			}); err != nil {
				t.Fatal(err)
			}
			r, err := s.do(context.Background(), "k#bad", "", func(context.Context) ([]byte, error) {
				t.Error("the work ran for a completed key")
				return nil, nil
			}, tc.opts...)
			var ie *idem.Error
			if !errors.Is(err, idem.ErrUnreadableResult) || !errors.As(err, &ie) || ie.Op != "replay" || ie.Key != "k#bad" {
				t.Fatalf("err %v, want idem.ErrUnreadableResult in an *idem.Error for the replay of the key", err)
			}
			if r.Outcome != 0 || r.Value != nil {
				t.Fatalf("result %s with %d bytes, want no outcome and no value", r.Outcome, len(r.Value))
			}
			if rec, _ := idemtest.MustGet(t, s.store, "k#bad"); rec.Status != idem.StatusCompleted || rec.Owner != owner {
				t.Fatalf("record %+v, want it left COMPLETED", rec)
			}
			rec, _ := idemtest.MustGet(t, s.store, "k#bad")
			limit := 0
			if tc.opts != nil {
				limit = len(prose) - 1
			}
			if _, err := rec.DecodedResult(limit); !errors.Is(err, idem.ErrUnreadableResult) {
				t.Fatalf("DecodedResult: %v, want idem.ErrUnreadableResult", err)
			}
		})
	}
}

// The limit is exact: a result of MaxDecodedBytes decodes.
func TestDecodedResultLimit(t *testing.T) {
	t.Parallel()
	prose := idemtest.Prose(10 << 10)
	rec := idem.Record{Result: idemtest.Gzip(t, prose), Encoding: storekit.EncodingGzip}
	if v, err := rec.DecodedResult(len(prose)); err != nil || !bytes.Equal(v, prose) {
		t.Fatalf("at the limit: %d bytes, %v", len(v), err)
	}
	if _, err := rec.DecodedResult(len(prose) - 1); !errors.Is(err, idem.ErrUnreadableResult) {
		t.Fatalf("a byte over: %v, want idem.ErrUnreadableResult", err)
	}
	raw := idem.Record{Result: prose}
	if v, err := raw.DecodedResult(1); err != nil || !bytes.Equal(v, prose) {
		t.Fatalf("a raw result is returned as it is, whatever the limit: %d bytes, %v", len(v), err)
	}
}

// Many results compressed and replayed at once (writers and readers are
// pooled, compressions bounded) each come back whole.
func TestConcurrentCompression(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	var wg sync.WaitGroup
	for i := range idemtest.Contenders {
		wg.Go(func() {
			key := idem.Key(fmt.Sprintf("k#many%d", i))
			prose := idemtest.Prose(1<<10 + i*512)
			for range 2 {
				r, err := s.do(context.Background(), key, "", func(context.Context) ([]byte, error) { return prose, nil })
				if err != nil || !bytes.Equal(r.Value, prose) {
					t.Errorf("%s: %s, %d bytes, %v; want the result", key, r.Outcome, len(r.Value), err)
				}
			}
		})
	}
	wg.Wait()
	for i := range idemtest.Contenders {
		key := idem.Key(fmt.Sprintf("k#many%d", i))
		if rec, _ := idemtest.MustGet(t, s.store, key); rec.Encoding != storekit.EncodingGzip {
			t.Errorf("%s: stored with encoding %q", key, rec.Encoding)
		}
	}
}
