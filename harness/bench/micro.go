package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Micro is a benchmark of the handler without I/O: idemq with its defaults
// over idem/memstore, work that returns at once, one batch per iteration.
// Besides ns/op it reports ns/record, allocs/record and B/record, which
// benchstat compares across commits.
type Micro struct {
	Name    string // scenario/batch=size, as `go test -bench` shows it under BenchmarkHandler
	Records int    // per iteration
	Bench   func(b *testing.B)
}

// microScenarios are the scenarios a micro-benchmark can repeat on one
// batch, by short name.
var microScenarios = []struct {
	name string
	s    Scenario
}{
	{"first", First},
	{"redelivery", Redelivery},
	{"duplicates", InBatchDuplicates},
	{"cache", CacheHits},
}

// MicroSizes are the batch sizes of the micro-benchmarks.
var MicroSizes = []int{10, 100, 1000}

// Micros returns every micro-benchmark: each scenario but the one that
// needs another worker, at each of MicroSizes.
func Micros() []Micro {
	var out []Micro
	for _, sc := range microScenarios {
		for _, size := range MicroSizes {
			out = append(out, Micro{Name: fmt.Sprintf("%s/batch=%d", sc.name, size), Records: size, Bench: microBench(sc.s, size)})
		}
	}
	return out
}

// swapStore lets a benchmark give the handler an empty store between
// iterations, so every iteration of "first" meets new keys.
type swapStore struct{ idem.Store }

func microBench(s Scenario, size int) func(*testing.B) {
	return func(b *testing.B) {
		t := NewTrial(s, "00000000", size, size, 0)
		ev := t.Batches[0]
		store := &swapStore{Store: newMemstore(b)}
		var calls atomic.Int64
		opts := []handler.Option{handler.WithRequest(request.Identity{Namespace: "bench"}),
			handler.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))}
		if t.Cache {
			opts = append(opts, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = size, cacheBytes })
		}
		h, err := handler.New(store, model(0, &calls), opts...)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), invocationTimeout)
		defer cancel()
		if t.Prep == PrepComplete {
			if _, err := runBatches(ctx, h, t.PrepBatches, nil); err != nil {
				b.Fatal(err)
			}
		}
		fresh := s == First || s == InBatchDuplicates
		var before, after runtime.MemStats
		b.ReportAllocs()
		runtime.ReadMemStats(&before)
		n := 0
		for b.Loop() {
			if fresh {
				store.Store = newMemstore(b)
			}
			resp, err := h(ctx, ev)
			if err != nil || len(resp.BatchItemFailures) > 0 {
				b.Fatalf("%s: %v, %d batch item failures", s, err, len(resp.BatchItemFailures))
			}
			n++
		}
		runtime.ReadMemStats(&after)
		reportPerRecord(b, &before, &after, n*len(ev.Records))
	}
}

// reportPerRecord reports the ns, allocations and bytes per record of a
// b.Loop that ran records records, from the memory statistics read
// around it.
func reportPerRecord(b *testing.B, before, after *runtime.MemStats, records int) {
	r := float64(records)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/r, "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/r, "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/r, "B/record")
}

// MicroResult is a micro-benchmark's outcome: medians over the counts of
// a `go test -bench` run.
type MicroResult struct {
	// Family is the benchmark it ran under: "Handler" (BenchmarkHandler,
	// Micros), "SDK" (BenchmarkSDK, SDKMicros), "Tracing"
	// (BenchmarkTracing, TracingMicros) or "Heartbeat" (BenchmarkHeartbeat,
	// HeartbeatMicros). Empty in runs made before there
	// were two: "Handler".
	Family          string `json:",omitempty"`
	Name            string
	NsPerRecord     float64
	AllocsPerRecord float64
	BytesPerRecord  float64
	// ExtendsPerRecord is the heartbeat's lease extensions per record
	// (BenchmarkHeartbeat only).
	ExtendsPerRecord float64 `json:",omitempty"`
}

// newMemstore returns an empty in-memory store.
func newMemstore(b *testing.B) *memstore.Store {
	s, err := memstore.New()
	if err != nil {
		b.Fatal(err)
	}
	return s
}
