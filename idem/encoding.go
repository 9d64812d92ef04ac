package idem

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/idemq/idemq/internal/storekit"
)

// ErrUnreadableResult means a stored result could not be decoded: an
// encoding this version does not know, a gzip stream that is corrupt or
// truncated, or one that expands past Config.MaxDecodedBytes. Do fails
// the replay with it (Outcome 0) rather than hand back an empty or
// partial result; the key stays completed.
var ErrUnreadableResult = errors.New("idem: stored result cannot be decoded")

// minSaving is how much smaller a result's gzip must be than the result
// for Do to store it: less would not pay for the marker every store keeps
// beside it (17 bytes in DynamoDB) and a decompression on every replay.
const minSaving = 32

// gzipLevel is the level results are compressed at: compress/gzip's
// default (6). On prose it stores 2–4 % fewer bytes than level 4 from
// 16 KiB up, for twice the CPU: at DynamoDB's and Lambda's prices the
// bytes cost more than the CPU (docs/benchmarks.md, "What a result costs
// by size"; BenchmarkGzipLevels).
const gzipLevel = gzip.DefaultCompression

var (
	gzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(io.Discard, gzipLevel)
		return w
	}}
	gzipReaders sync.Pool // *gzip.Reader
	// compressing bounds the compressions under way: each holds a writer
	// of some 800 KB, and a batch can finish a hundred records at once.
	// Compression is CPU-bound, so more at once than CPUs would not be
	// faster, only larger.
	compressing = make(chan struct{}, max(runtime.NumCPU(), 2))
)

// encode is the form Do stores value in: its gzip when value is longer
// than CompressAbove, no longer than MaxDecodedBytes (so its replay can
// read it back) and gzip saves at least minSaving bytes; value itself
// otherwise. c is resolved.
func (c *Config) encode(value []byte) (stored []byte, encoding string) {
	if c.CompressAbove < 0 || len(value) <= c.CompressAbove || len(value) > c.MaxDecodedBytes {
		return value, storekit.EncodingRaw
	}
	compressing <- struct{}{}
	defer func() { <-compressing }()
	var buf bytes.Buffer
	buf.Grow(len(value) / 2)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(value); err != nil {
		return value, storekit.EncodingRaw // a bytes.Buffer does not fail; if it did, store the result raw
	}
	if err := w.Close(); err != nil {
		return value, storekit.EncodingRaw
	}
	if buf.Len() > len(value)-minSaving {
		return value, storekit.EncodingRaw
	}
	return buf.Bytes(), storekit.EncodingGzip
}

// decode returns the result r holds as the work returned it, reading at
// most limit bytes out of a compressed one.
func decode(r *Record, limit int) ([]byte, error) {
	switch r.Encoding {
	case storekit.EncodingRaw:
		return r.Result, nil
	case storekit.EncodingGzip:
		v, err := gunzip(r.Result, limit)
		if err != nil {
			return nil, fmt.Errorf("%w: %s, %d bytes stored: %w", ErrUnreadableResult, r.Encoding, len(r.Result), err)
		}
		return v, nil
	case storekit.EncodingBlob:
		return nil, fmt.Errorf("%w: the result is in a blob store (Config.Blobs), read by Do's replay", ErrUnreadableResult)
	}
	return nil, fmt.Errorf("%w: unknown encoding %q (written by a newer version?)", ErrUnreadableResult, r.Encoding)
}

// gunzip decompresses one gzip member, which must fill stored exactly and
// expand to at most limit bytes; its CRC-32 and length are checked.
func gunzip(stored []byte, limit int) ([]byte, error) {
	src := bytes.NewReader(stored)
	var zr *gzip.Reader
	if pooled, ok := gzipReaders.Get().(*gzip.Reader); ok {
		zr = pooled
		if err := zr.Reset(src); err != nil {
			return nil, err
		}
	} else {
		var err error
		if zr, err = gzip.NewReader(src); err != nil {
			return nil, err
		}
	}
	defer gzipReaders.Put(zr)
	zr.Multistream(false)
	var out bytes.Buffer
	// The stream's own length (its last four bytes, modulo 2^32) sizes the
	// buffer, within the limit: a lie costs at most the limit.
	if n := len(stored); n >= 4 {
		size := int(uint32(stored[n-4]) | uint32(stored[n-3])<<8 | uint32(stored[n-2])<<16 | uint32(stored[n-1])<<24)
		out.Grow(min(size, limit) + bytes.MinRead)
	}
	// Reading to the end of the member checks its CRC-32 and length; one
	// byte past the limit means it expands too far.
	n, err := out.ReadFrom(io.LimitReader(zr, int64(limit)+1))
	switch {
	case err != nil:
		return nil, err
	case n > int64(limit):
		return nil, fmt.Errorf("it expands past %d bytes (Config.MaxDecodedBytes)", limit)
	case src.Len() > 0:
		return nil, fmt.Errorf("%d bytes follow the gzip member", src.Len())
	}
	return out.Bytes(), nil
}

// DecodedResult returns the result r holds as the work returned it, as Do
// replays it: Result itself for storekit.EncodingRaw, its gzip decompressed for
// storekit.EncodingGzip, reading at most limit bytes (0: defaultMaxDecodedBytes).
// A result it cannot decode is ErrUnreadableResult. It is for tools and
// tests that read records with a store's Get.
func (r *Record) DecodedResult(limit int) ([]byte, error) {
	if limit <= 0 {
		limit = defaultMaxDecodedBytes
	}
	return decode(r, limit)
}
