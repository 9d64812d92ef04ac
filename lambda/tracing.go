package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqotel"
	"github.com/idemq/idemq/worker"
)

// defaultOTLPEndpoint is where the ADOT Lambda layer's collector takes
// OTLP traces over HTTP.
const defaultOTLPEndpoint = "http://localhost:4318/v1/traces"

// newTracer makes the tracing IDEMQ_TRACING asks for (mode "otel" or
// "xray"; lambda/tracing.go's newTracing): idemqotel's spans, with the
// invocation's X-Ray trace as each batch's parent for "xray", flushed
// after each batch.
func newTracer(_ context.Context, mode string) (worker.Tracing, error) {
	tr, err := newTracing(os.Getenv)
	if err != nil {
		return worker.Tracing{}, err
	}
	return worker.Tracing{Option: tr.option(mode), Wrap: tr.flushing}, nil
}

// tracing is the worker's tracer provider: idemqotel's spans, batched and
// sent over OTLP/HTTP (otlpJSON), flushed after each batch so none is lost when
// Lambda freezes the function between invocations.
type tracing struct {
	tp *sdktrace.TracerProvider
}

// newTracing makes the worker's tracing for IDEMQ_TRACING (set). Spans go
// to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT
// with /v1/traces, else the ADOT layer's collector on the loopback, with
// the headers of OTEL_EXPORTER_OTLP_TRACES_HEADERS, else
// OTEL_EXPORTER_OTLP_HEADERS, in OTLP's JSON encoding (otlpJSON).
func newTracing(getenv func(string) string) (*tracing, error) {
	endpoint := defaultOTLPEndpoint
	switch traces, base := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); {
	case traces != "":
		endpoint = traces
	case base != "":
		endpoint = strings.TrimSuffix(base, "/") + "/v1/traces"
	}
	headers := getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
	if headers == "" {
		headers = getenv("OTEL_EXPORTER_OTLP_HEADERS")
	}
	exporter, err := newOTLPJSON(endpoint, headers)
	if err != nil {
		return nil, fmt.Errorf("the OTLP exporter: %w", err)
	}
	res := resource.Default()
	if getenv("OTEL_SERVICE_NAME") == "" && lambdacontext.FunctionName != "" {
		if res, err = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName(lambdacontext.FunctionName))); err != nil {
			return nil, fmt.Errorf("the resource: %w", err)
		}
	}
	return &tracing{tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(xrayIDs{}))}, nil
}

// xrayIDs makes trace ids X-Ray takes as its own: the first 4 bytes the
// time in epoch seconds, the other 12 random (X-Ray reads a trace id's
// time from them, and refuses one too old); span ids are random.
type xrayIDs struct{}

func (xrayIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	binary.BigEndian.PutUint32(tid[:4], uint32(time.Now().Unix()))
	_, _ = rand.Read(tid[4:]) // crypto/rand.Read never fails (Go 1.24+)
	return tid, newSpanID()
}

func (xrayIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

func newSpanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		_, _ = rand.Read(sid[:])
	}
	return sid
}

// option is the handler option that traces with t: with the invocation's
// X-Ray trace as each batch's parent when mode is "xray".
func (t *tracing) option(mode string) handler.Option {
	var opts []idemqotel.Option
	if mode == "xray" {
		opts = append(opts, idemqotel.WithLambdaTraceHeader())
	}
	return idemqotel.WithTracing(t.tp, opts...)
}

// maxFlush bounds the sending of a batch's spans: a collector that does
// not answer must not hold the batch's response past the invocation's
// deadline, which would bring every message back.
const maxFlush = 2 * time.Second

// flushing returns h, then sends the spans of each batch before it
// answers, so that they leave before Lambda freezes the function: for at
// most maxFlush, or half the time left before the invocation's deadline.
// A failed flush is reported on stderr and changes nothing of the batch.
func (t *tracing) flushing(h handler.Handler) handler.Handler {
	return func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
		resp, err := h(ctx, event)
		limit := maxFlush
		if deadline, ok := ctx.Deadline(); ok {
			limit = min(limit, time.Until(deadline)/2)
		}
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
		defer cancel()
		if ferr := t.tp.ForceFlush(flushCtx); ferr != nil {
			fmt.Fprintf(os.Stderr, "idemq worker: IDEMQ_TRACING: spans not sent: %v\n", ferr)
		}
		return resp, err
	}
}
