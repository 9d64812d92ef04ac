package idem_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// memBlobs is a Blobs in memory whose puts can be made to fail.
type memBlobs struct {
	mu      sync.Mutex
	objects map[string][]byte
	putErr  error
	puts    int
}

func newMemBlobs() *memBlobs { return &memBlobs{objects: make(map[string][]byte)} }

func (b *memBlobs) Put(_ context.Context, name string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.puts++
	if b.putErr != nil {
		return b.putErr
	}
	b.objects[name] = slices.Clone(data)
	return nil
}

func (b *memBlobs) Get(_ context.Context, name string, size int) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, ok := b.objects[name]
	if !ok {
		return nil, fmt.Errorf("memBlobs %s: %w", name, idem.ErrBlobMissing)
	}
	if len(data) > size {
		return nil, fmt.Errorf("memBlobs %s: %d bytes, over %d: %w", name, len(data), size, idem.ErrBlobTooLarge)
	}
	return slices.Clone(data), nil
}

func (b *memBlobs) names() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(b.objects))
}

// hexResult is n bytes of random hex: it gzips to a little over half.
func hexResult(n int) []byte {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return []byte(hex.EncodeToString(b)[:n])
}

// record reads key's record from the setup's store.
func (s *setup) record(t *testing.T, key idem.Key) idem.Record {
	t.Helper()
	rec, ok, err := s.store.Get(context.Background(), key)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = %v, %v", key, ok, err)
	}
	return rec
}

func TestDoOffloadsLargeResultsAndReplaysThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		value   []byte
		opts    []idem.Option
		offload bool
	}{
		{"gzip above the default", hexResult(40 << 10), nil, true},
		{"raw above the default", hexResult(40 << 10), []idem.Option{func(c *idem.Config) { c.CompressAbove = -1 }}, true},
		{"gzip below the default stays inline", hexResult(idem.DefaultOffloadAbove * 3 / 2), nil, false},
		{"just above a threshold set", hexResult(101), []idem.Option{func(c *idem.Config) { c.CompressAbove = -1 }, func(c *idem.Config) { c.OffloadAbove = 100 }}, true},
		{"at a threshold set stays inline", hexResult(100), []idem.Option{func(c *idem.Config) { c.CompressAbove = -1 }, func(c *idem.Config) { c.OffloadAbove = 100 }}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t)
			blobs := newMemBlobs()
			opts := append([]idem.Option{idem.WithBlobs(blobs)}, tc.opts...)
			r, err := s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) { return tc.value, nil }, opts...)
			if err != nil || r.Outcome != idem.Executed || string(r.Value) != string(tc.value) {
				t.Fatalf("Do = %v, %v", r.Outcome, err)
			}
			rec := s.record(t, "k#1")
			if got := rec.Encoding == storekit.EncodingBlob; got != tc.offload {
				t.Fatalf("Encoding %q, %d bytes in the record, offloaded %v; want %v", rec.Encoding, len(rec.Result), got, tc.offload)
			}
			if tc.offload && (len(rec.Result) > 300 || len(blobs.names()) != 1) {
				t.Fatalf("record holds %d bytes, blob store %v; want a small pointer and one object", len(rec.Result), blobs.names())
			}
			if !tc.offload && blobs.puts != 0 {
				t.Fatalf("%d puts for a result that fits", blobs.puts)
			}
			r, err = s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) {
				t.Error("the work ran again")
				return nil, nil
			}, opts...)
			if err != nil || r.Outcome != idem.Replayed || string(r.Value) != string(tc.value) {
				t.Fatalf("replay = %v, %d bytes, %v; want the %d bytes the work returned", r.Outcome, len(r.Value), err, len(tc.value))
			}
		})
	}
}

func TestDoBlobReplayFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		damage  func(b *memBlobs, name string)
		noBlobs bool
		want    error
	}{
		{"missing object", func(b *memBlobs, name string) { delete(b.objects, name) }, false, idem.ErrBlobMissing},
		{"same size, other bytes", func(b *memBlobs, name string) { b.objects[name][0] ^= 1 }, false, idem.ErrUnreadableResult},
		{"truncated", func(b *memBlobs, name string) { b.objects[name] = b.objects[name][:len(b.objects[name])-1] }, false, idem.ErrUnreadableResult},
		{"longer than the pointer says", func(b *memBlobs, name string) { b.objects[name] = append(b.objects[name], 'x') }, false, idem.ErrBlobTooLarge},
		{"no blob store configured", func(*memBlobs, string) {}, true, idem.ErrUnreadableResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t)
			blobs := newMemBlobs()
			// Stored raw, so only the pointer's size and SHA-256 can tell
			// damaged bytes (gzip's own check would catch some).
			opts := []idem.Option{idem.WithBlobs(blobs), func(c *idem.Config) { c.CompressAbove = -1 }}
			if _, err := s.do(context.Background(), "k#1", "", answer(string(hexResult(20<<10))), opts...); err != nil {
				t.Fatal(err)
			}
			tc.damage(blobs, blobs.names()[0])
			if tc.noBlobs {
				opts = nil
			}
			r, err := s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) {
				t.Error("the work ran again")
				return nil, nil
			}, opts...)
			if !errors.Is(err, idem.ErrUnreadableResult) || !errors.Is(err, tc.want) || r.Outcome != 0 || r.Value != nil {
				t.Fatalf("replay = %v, %d bytes, %v; want outcome 0 and %v", r.Outcome, len(r.Value), err, tc.want)
			}
			if rec := s.record(t, "k#1"); rec.Status != idem.StatusCompleted {
				t.Fatalf("status %s after a failed replay; want the key still completed", rec.Status)
			}
		})
	}
}

func TestDoFailedPutLeavesTheKeyUnsettled(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	blobs := newMemBlobs()
	blobs.putErr = errors.New("s3 unavailable")
	value := string(hexResult(20 << 10))
	r, err := s.do(context.Background(), "k#1", "", answer(value), idem.WithBlobs(blobs), idem.WithLease(time.Hour))
	if r.Outcome != idem.NotStored || !errors.Is(err, blobs.putErr) || string(r.Value) != value {
		t.Fatalf("Do = %v, %v; want NotStored with the put's error and the fresh value", r.Outcome, err)
	}
	// The claim was released: a retry runs the work now, not after the
	// hour's lease.
	blobs.putErr = nil
	ran := false
	r, err = s.do(context.Background(), "k#1", "", func(context.Context) ([]byte, error) {
		ran = true
		return []byte(value), nil
	}, idem.WithBlobs(blobs))
	if err != nil || r.Outcome != idem.Executed || !ran {
		t.Fatalf("retry = %v, ran %v, %v; want Executed", r.Outcome, ran, err)
	}
}

func TestDoStaleWorkerNeverOverwritesTheWinnersObject(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	blobs := newMemBlobs()
	opts := []idem.Option{idem.WithBlobs(blobs), idem.WithLease(time.Minute)}
	stale, winner := hexResult(20<<10), hexResult(20<<10)
	r, err := s.do(context.Background(), "k#1", "", func(ctx context.Context) ([]byte, error) {
		// This worker stalls past its lease; another takes the key over
		// and completes it before this one finishes.
		s.advance(2 * time.Minute)
		r, err := s.do(ctx, "k#1", "", func(context.Context) ([]byte, error) { return winner, nil }, opts...)
		if err != nil || r.Outcome != idem.Executed || !r.TookOver {
			t.Errorf("takeover = %v, %v", r.Outcome, err)
		}
		return stale, nil
	}, opts...)
	if r.Outcome != idem.Superseded || !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("stale worker = %v, %v; want Superseded", r.Outcome, err)
	}
	if n := len(blobs.names()); n != 2 {
		t.Fatalf("%d objects; want two, one per execution", n)
	}
	r, err = s.do(context.Background(), "k#1", "", answer("ran again"), opts...)
	if err != nil || r.Outcome != idem.Replayed || string(r.Value) != string(winner) {
		t.Fatalf("replay = %v, %v; want the winner's result", r.Outcome, err)
	}
}
