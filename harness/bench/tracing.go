package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqotel"
	"github.com/idemq/idemq/request"
)

// The tracers a tracing micro-benchmark runs with, by the name it gives
// them under BenchmarkTracing.
const (
	// TracingOff is handler.Config.Tracer nil, the default.
	TracingOff = "off"
	// TracingNoop is a handler.Tracer that does nothing: the hook's own
	// cost (the store's wrapper, the calls, the contexts passed on).
	TracingNoop = "noop"
	// TracingOTel is idemqotel over the OpenTelemetry SDK, every span
	// sampled and recorded, then dropped by a span processor that keeps
	// nothing: what making the spans costs, without an exporter's I/O.
	TracingOTel = "otel"
)

// TracingMicros returns the tracing micro-benchmarks: first delivery
// over idem/memstore, as BenchmarkHandler's "first", with tracing off,
// with a no-op Tracer and with OpenTelemetry, at each of MicroSizes but
// the largest.
func TracingMicros() []Micro {
	var out []Micro
	for _, size := range MicroSizes[:len(MicroSizes)-1] {
		for _, tr := range []string{TracingOff, TracingNoop, TracingOTel} {
			out = append(out, Micro{Name: fmt.Sprintf("%s/batch=%d", tr, size), Records: size, Bench: tracingBench(tr, size)})
		}
	}
	return out
}

// noopTracer is a handler.Tracer that records nothing.
type noopTracer struct{}

func noEnd[T any](T) {}

func (noopTracer) StartBatch(ctx context.Context, _ handler.BatchStart) (context.Context, func(handler.BatchEnd)) {
	return ctx, noEnd[handler.BatchEnd]
}

func (noopTracer) StartRecord(ctx context.Context, _ handler.RecordStart) (context.Context, func(handler.RecordEnd)) {
	return ctx, noEnd[handler.RecordEnd]
}

func (noopTracer) StartStoreCall(ctx context.Context, _ handler.StoreCallStart) (context.Context, func(handler.StoreCallEnd)) {
	return ctx, noEnd[handler.StoreCallEnd]
}

// dropSpans is a span processor that keeps nothing.
type dropSpans struct{}

func (dropSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (dropSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (dropSpans) Shutdown(context.Context) error                  { return nil }
func (dropSpans) ForceFlush(context.Context) error                { return nil }

func tracingBench(tracer string, size int) func(*testing.B) {
	return func(b *testing.B) {
		ev := NewTrial(First, "00000000", size, size, 0).Batches[0]
		store := &swapStore{Store: newMemstore(b)}
		var calls atomic.Int64
		opts := []handler.Option{handler.WithRequest(request.Identity{Namespace: "bench"}),
			handler.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))}
		switch tracer {
		case TracingNoop:
			opts = append(opts, handler.WithTracer(noopTracer{}))
		case TracingOTel:
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(dropSpans{}))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			opts = append(opts, idemqotel.WithTracing(tp))
		}
		h, err := handler.New(store, model(0, &calls), opts...)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), invocationTimeout)
		defer cancel()
		var before, after runtime.MemStats
		b.ReportAllocs()
		runtime.ReadMemStats(&before)
		n := 0
		for b.Loop() {
			store.Store = newMemstore(b)
			resp, err := h(ctx, ev)
			if err != nil || len(resp.BatchItemFailures) > 0 {
				b.Fatalf("tracing %s: %v, %d batch item failures", tracer, err, len(resp.BatchItemFailures))
			}
			n++
		}
		runtime.ReadMemStats(&after)
		reportPerRecord(b, &before, &after, n*len(ev.Records))
	}
}
