package idem

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"testing"

	"github.com/idemq/idemq/internal/testenv"
)

// benchSizes are the result sizes the compression benchmarks measure, in
// KiB.
var benchSizes = []int{1, 4, 16, 64, 256}

// opticksAt returns n bytes of Opticks from a point past Project
// Gutenberg's header: prose, as a model's answer is.
func opticksAt(b *testing.B, n int) []byte {
	text := testenv.Opticks(b)
	const from = 20000
	return text[from : from+n]
}

// BenchmarkGzipLevels compresses prose at compress/gzip's levels, with a
// writer reused as Do reuses them: the ratio ("x") and the time per
// result, from which gzipLevel was chosen.
func BenchmarkGzipLevels(b *testing.B) {
	for _, kb := range benchSizes {
		src := opticksAt(b, kb<<10)
		for _, level := range []int{gzip.BestSpeed, 4, gzip.DefaultCompression, gzip.BestCompression} {
			b.Run(fmt.Sprintf("%dKiB/level=%d", kb, level), func(b *testing.B) {
				var buf bytes.Buffer
				w, _ := gzip.NewWriterLevel(&buf, level)
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					buf.Reset()
					w.Reset(&buf)
					_, _ = w.Write(src)
					_ = w.Close()
				}
				b.ReportMetric(float64(len(src))/float64(buf.Len()), "x")
				b.ReportMetric(float64(buf.Len()), "stored-B")
			})
		}
	}
}

// BenchmarkEncode is what Do adds to a completion: the result's gzip.
func BenchmarkEncode(b *testing.B) {
	c, _ := NewConfig()
	for _, kb := range benchSizes {
		src := opticksAt(b, kb<<10)
		b.Run(fmt.Sprintf("%dKiB", kb), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var stored []byte
			for b.Loop() {
				stored, _ = c.encode(src)
			}
			b.ReportMetric(float64(len(src))/float64(len(stored)), "x")
		})
	}
}

// BenchmarkDecode is what Do adds to a replay: the stored result's
// decompression, checked.
func BenchmarkDecode(b *testing.B) {
	c, _ := NewConfig()
	for _, kb := range benchSizes {
		src := opticksAt(b, kb<<10)
		stored, enc := c.encode(src)
		rec := &Record{Result: stored, Encoding: enc}
		b.Run(fmt.Sprintf("%dKiB", kb), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(rec, c.MaxDecodedBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
