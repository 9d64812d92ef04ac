package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/leasectx"
	"github.com/idemq/idemq/request"
)

// The heartbeat micro-benchmarks' settings: the consumer's default lease
// and heartbeat (consumer.DefaultShortLease, consumer.DefaultHeartbeat: 1 min,
// 20 s) scaled down by HeartbeatScale, so that work of a few beats takes
// half a second, not minutes; the extensions per record scale with it.
const (
	HeartbeatScale = 400
	heartbeatLease = consumer.DefaultShortLease / HeartbeatScale // 150 ms
	heartbeatBeat  = consumer.DefaultHeartbeat / HeartbeatScale  // 50 ms
	// HeartbeatWork is each record's work: 10 beats long, as 200 s of work
	// at the consumer's default.
	HeartbeatWork = 10 * heartbeatBeat
	// heartbeatBatch is the records of a batch, run at once.
	heartbeatBatch = 10
)

// The two ways a heartbeat micro-benchmark runs, by the name it gives
// them under BenchmarkHeartbeat.
const (
	// HeartbeatOff is the lease made from the batch's deadline (as under
	// Lambda, or a negative consumer.Config.Lease): no extension.
	HeartbeatOff = "off"
	// HeartbeatOn is the consumer's default, scaled: a short lease
	// renewed by a heartbeat (leasectx.WithDefaultLease).
	HeartbeatOn = "on"
)

// HeartbeatMicros returns the heartbeat micro-benchmarks: first delivery
// of a batch of 10 records over idem/memstore, each record's work lasting
// HeartbeatWork, with the deadline's lease and with the consumer's short
// lease and heartbeat, both scaled down by HeartbeatScale. Besides the
// per-record figures they report extends/record: the store requests the
// heartbeat adds to each record (a claim and a completion are 2).
func HeartbeatMicros() []Micro {
	var out []Micro
	for _, mode := range []string{HeartbeatOff, HeartbeatOn} {
		out = append(out, Micro{Name: fmt.Sprintf("%s/batch=%d", mode, heartbeatBatch), Records: heartbeatBatch, Bench: heartbeatBench(mode)})
	}
	return out
}

// countExtends is a store that counts the leases it extends.
type countExtends struct {
	idem.Store
	n atomic.Int64
}

func (c *countExtends) Extend(ctx context.Context, x idem.Extension) error {
	c.n.Add(1)
	return c.Store.Extend(ctx, x)
}

func heartbeatBench(mode string) func(*testing.B) {
	return func(b *testing.B) {
		t := NewTrial(First, "00000000", heartbeatBatch, heartbeatBatch, 0)
		ev := t.Batches[0]
		store := &countExtends{Store: newMemstore(b)}
		var calls atomic.Int64
		h, err := handler.New(store, model(HeartbeatWork, &calls), handler.WithRequest(request.Identity{Namespace: "bench"}),
			handler.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		b.ReportAllocs()
		runtime.ReadMemStats(&before)
		n := 0
		for b.Loop() {
			store.Store = newMemstore(b)
			ctx, cancel := context.WithTimeout(context.Background(), invocationTimeout)
			if mode == HeartbeatOn {
				ctx = leasectx.WithDefaultLease(ctx, heartbeatLease, heartbeatBeat)
			}
			resp, err := h(ctx, ev)
			cancel()
			if err != nil || len(resp.BatchItemFailures) > 0 {
				b.Fatalf("%s: %v, %d batch item failures", mode, err, len(resp.BatchItemFailures))
			}
			n++
		}
		runtime.ReadMemStats(&after)
		records := n * len(ev.Records)
		reportPerRecord(b, &before, &after, records)
		b.ReportMetric(float64(store.n.Load())/float64(records), "extends/record")
	}
}

// HeartbeatCost says what the heartbeat costs at the consumer's default,
// from extends per record of HeartbeatWork measured at the scale: store
// requests per minute of work per record.
func HeartbeatCost(extendsPerRecord float64) (perMinute float64) {
	workAtDefault := HeartbeatWork * HeartbeatScale // the same beats at the default interval
	return extendsPerRecord / workAtDefault.Minutes()
}
