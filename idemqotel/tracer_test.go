package idemqotel_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idemqotel"
	"github.com/idemq/idemq/request"
)

const namespace = "traced"

// The trace contexts the test's messages were sent in.
const (
	xrayHeader    = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	xrayTraceID   = "5759e988bd862e3fe1be46a994272793"
	traceparent   = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	w3cTraceID    = "0af7651916cd43dd8448eb211c80319c"
	w3cParentSpan = "b7ad6b7169203331"
)

// setup is a handler over a memstore, traced into an in-memory exporter,
// and the batch the tests trace: m-fresh runs, m-copy is a copy of it in
// the batch, m-done replays a completed key, m-held finds its key in
// progress on another worker, m-fails fails in the function. m-fresh
// carries an X-Ray header, m-done a W3C traceparent.
type setup struct {
	exporter *tracetest.InMemoryExporter
	h        handler.Handler
	event    events.SQSEvent
}

func newSetup(t *testing.T, opts ...idemqotel.Option) *setup {
	t.Helper()
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	user := tp.Tracer("user")
	fn := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		_, span := user.Start(ctx, "user work "+msg.MessageId)
		defer span.End()
		if strings.Contains(msg.Body, "k-fails") {
			return nil, errors.New("the provider said no")
		}
		return []byte("result"), nil
	}
	h, err := handler.New(store, fn, handler.WithRequest(request.Identity{Namespace: namespace}),
		handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), idemqotel.WithTracing(tp, opts...))
	if err != nil {
		t.Fatal(err)
	}
	// k-done is completed by an earlier batch; k-held is held by another
	// worker.
	if resp, err := h(context.Background(), handlertest.Event(handlertest.Message("m-earlier", `{"idempotency_key":"k-done"}`))); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("earlier batch: %v %v", resp, err)
	}
	now := time.Now()
	held, _ := idem.ClientKey(namespace, "k-held")
	if c, err := store.Claim(context.Background(), idem.ClaimRequest{Key: held, Owner: idem.NewOwner(), Now: now,
		LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(2 * time.Hour)}); err != nil || !c.Claimed {
		t.Fatalf("hold k-held: %v %v", c, err)
	}
	exporter.Reset()

	fresh := handlertest.Message("m-fresh", `{"idempotency_key":"k-fresh"}`)
	fresh.Attributes[idemqotel.XRayHeader] = xrayHeader
	done := handlertest.Message("m-done", `{"idempotency_key":"k-done"}`)
	done.MessageAttributes = map[string]events.SQSMessageAttribute{"traceparent": {DataType: "String", StringValue: ptr(traceparent)}}
	event := handlertest.Event(fresh,
		handlertest.Message("m-copy", `{"idempotency_key":"k-fresh"}`),
		done,
		handlertest.Message("m-held", `{"idempotency_key":"k-held"}`),
		handlertest.Message("m-fails", `{"idempotency_key":"k-fails"}`))
	return &setup{exporter: exporter, h: h, event: event}
}

func ptr(s string) *string { return &s }

// run runs the batch and returns its spans.
func (s *setup) run(t *testing.T) tracetest.SpanStubs {
	t.Helper()
	resp, err := s.h(context.Background(), s.event)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	if strings.Join(failed, ",") != "m-held,m-fails" {
		t.Fatalf("batch item failures %v, want m-held and m-fails", failed)
	}
	return s.exporter.GetSpans()
}

func attr(s tracetest.SpanStub, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestTraceOfABatch checks the trace of one batch: one batch span with
// the messaging attributes and a link to each message's context, a span
// per record with its outcome, a span per store call under its record's,
// and the function's own spans under its record's.
func TestTraceOfABatch(t *testing.T) {
	t.Parallel()
	spans := newSetup(t).run(t)

	batches := named(spans, "process handlertest")
	if len(batches) != 1 {
		t.Fatalf("%d batch spans, want 1; spans: %v", len(batches), names(spans))
	}
	batch := batches[0]
	if batch.SpanKind != trace.SpanKindConsumer {
		t.Errorf("batch span kind %v, want consumer", batch.SpanKind)
	}
	for key, want := range map[attribute.Key]attribute.Value{
		"messaging.system":              attribute.StringValue("aws_sqs"),
		"messaging.operation.name":      attribute.StringValue("process"),
		"messaging.operation.type":      attribute.StringValue("process"),
		"messaging.batch.message_count": attribute.IntValue(5),
		"messaging.destination.name":    attribute.StringValue("handlertest"),
		"aws.sqs.queue.url":             attribute.StringValue("https://sqs.us-east-1.amazonaws.com/000000000000/handlertest"),
		idemqotel.BatchItemFailuresKey:  attribute.IntValue(2),
	} {
		if got, ok := attr(batch, key); !ok || got != want {
			t.Errorf("batch span %s = %v, want %v", key, got.String(), want.String())
		}
	}
	linked := map[string]bool{}
	for _, l := range batch.Links {
		linked[l.SpanContext.TraceID().String()] = true
	}
	if len(batch.Links) != 2 || !linked[xrayTraceID] || !linked[w3cTraceID] {
		t.Errorf("batch span links %v, want the X-Ray and the W3C message contexts", batch.Links)
	}

	wantOutcome := map[string]handler.RecordOutcome{
		"m-fresh": "executed", "m-copy": "copy", "m-done": "replayed",
		"m-held": "in_progress", "m-fails": "failed",
	}
	wantCalls := map[string][]string{ // store calls under each record's span, in order
		"m-fresh": {"idemq claim", "idemq complete"}, "m-copy": nil, "m-done": {"idemq claim"},
		"m-held": {"idemq claim"}, "m-fails": {"idemq claim", "idemq release"},
	}
	wantAnswer := map[string]string{"m-fresh": "claimed", "m-done": "COMPLETED", "m-held": "INPROGRESS", "m-fails": "claimed"}
	records := named(spans, "idemq record")
	if len(records) != len(wantOutcome) {
		t.Fatalf("%d record spans, want %d; spans: %v", len(records), len(wantOutcome), names(spans))
	}
	for _, rec := range records {
		idv, _ := attr(rec, "messaging.message.id")
		id := idv.AsString()
		if rec.Parent.SpanID() != batch.SpanContext.SpanID() || rec.SpanContext.TraceID() != batch.SpanContext.TraceID() {
			t.Errorf("%s: record span's parent %v, want the batch span %v", id, rec.Parent.SpanID(), batch.SpanContext.SpanID())
		}
		if got, _ := attr(rec, idemqotel.OutcomeKey); got.AsString() != string(wantOutcome[id]) {
			t.Errorf("%s: outcome %q, want %q", id, got.AsString(), wantOutcome[id])
		}
		if wantErr := id == "m-fails"; (rec.Status.Code == codes.Error) != wantErr {
			t.Errorf("%s: status %v, want an error: %v", id, rec.Status, wantErr)
		}
		var calls []string
		for _, s := range spans {
			if s.Parent.SpanID() != rec.SpanContext.SpanID() || !strings.HasPrefix(s.Name, "idemq ") {
				continue
			}
			calls = append(calls, s.Name)
			if s.Name == "idemq claim" {
				if got, _ := attr(s, idemqotel.ClaimAnswerKey); got.AsString() != wantAnswer[id] {
					t.Errorf("%s: claim answer %q, want %q", id, got.AsString(), wantAnswer[id])
				}
			}
		}
		// Spans are exported as they end: the claim before the completion.
		if strings.Join(calls, ",") != strings.Join(wantCalls[id], ",") {
			t.Errorf("%s: store call spans %v, want %v", id, calls, wantCalls[id])
		}
		if id == "m-fresh" || id == "m-fails" {
			work := named(spans, "user work "+id)
			if len(work) != 1 || work[0].Parent.SpanID() != rec.SpanContext.SpanID() {
				t.Errorf("%s: the function's span is not a child of the record's: %v", id, work)
			}
		}
		var links []string
		for _, l := range rec.Links {
			links = append(links, l.SpanContext.TraceID().String())
		}
		wantLinks := map[string]string{"m-fresh": xrayTraceID, "m-done": w3cTraceID}[id]
		if strings.Join(links, ",") != wantLinks {
			t.Errorf("%s: record span links %v, want %q", id, links, wantLinks)
		}
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// TestKeysStayOffTheSpans checks that without WithKeys no span carries a
// key, in an attribute or an error description (idem's errors name their
// key), and that with it record and store call spans do.
func TestKeysStayOffTheSpans(t *testing.T) {
	t.Parallel()
	for _, s := range newSetup(t).run(t) {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "k-") {
				t.Errorf("%s: attribute %s = %q holds a key", s.Name, kv.Key, kv.Value.String())
			}
		}
		if strings.Contains(s.Status.Description, "k-") {
			t.Errorf("%s: status %q holds a key", s.Name, s.Status.Description)
		}
	}
	spans := newSetup(t, idemqotel.WithKeys()).run(t)
	keyed := 0
	for _, s := range spans {
		if v, ok := attr(s, idemqotel.KeyKey); ok && strings.HasPrefix(v.AsString(), namespace+"#k-") {
			keyed++
		}
	}
	// 5 records and 6 store calls.
	if keyed != 11 {
		t.Errorf("%d spans carry a key with WithKeys, want 11: %v", keyed, names(spans))
	}
	for _, s := range named(spans, "idemq record") {
		if s.Status.Code == codes.Error && !strings.Contains(s.Status.Description, "k-fails") {
			t.Errorf("with WithKeys the failure %q does not name its key", s.Status.Description)
		}
	}
}

// TestMessageParent checks that with WithMessageParent a record span
// continues its message's trace and links to the batch's span.
func TestMessageParent(t *testing.T) {
	t.Parallel()
	spans := newSetup(t, idemqotel.WithMessageParent()).run(t)
	batch := named(spans, "process handlertest")[0]
	for _, rec := range named(spans, "idemq record") {
		idv, _ := attr(rec, "messaging.message.id")
		switch id := idv.AsString(); id {
		case "m-fresh", "m-done":
			want := map[string]string{"m-fresh": xrayTraceID, "m-done": w3cTraceID}[id]
			if rec.SpanContext.TraceID().String() != want || !rec.Parent.IsRemote() {
				t.Errorf("%s: record span in trace %s (parent %v), want the message's %s", id, rec.SpanContext.TraceID(), rec.Parent, want)
			}
			if id == "m-done" && rec.Parent.SpanID().String() != w3cParentSpan {
				t.Errorf("%s: parent span %s, want %s", id, rec.Parent.SpanID(), w3cParentSpan)
			}
			if len(rec.Links) != 1 || rec.Links[0].SpanContext.SpanID() != batch.SpanContext.SpanID() {
				t.Errorf("%s: links %v, want the batch span", id, rec.Links)
			}
		default: // no trace context: a child of the batch's span
			if rec.Parent.SpanID() != batch.SpanContext.SpanID() {
				t.Errorf("%s: parent %v, want the batch span", id, rec.Parent)
			}
		}
	}
}

// TestLambdaTraceHeader checks that WithLambdaTraceHeader makes the batch
// span a child of the invocation's X-Ray trace header.
func TestLambdaTraceHeader(t *testing.T) {
	t.Parallel()
	s := newSetup(t, idemqotel.WithLambdaTraceHeader())
	//lint:ignore SA1029 the key aws-lambda-go puts the invocation's trace header under
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", xrayHeader)
	if _, err := s.h(ctx, s.event); err != nil {
		t.Fatal(err)
	}
	batch := named(s.exporter.GetSpans(), "process handlertest")[0]
	if batch.SpanContext.TraceID().String() != xrayTraceID || batch.Parent.SpanID().String() != "53995c3f42cd8ad8" {
		t.Errorf("batch span in trace %s under %s, want the invocation's %s", batch.SpanContext.TraceID(), batch.Parent.SpanID(), xrayTraceID)
	}
}

// TestNew checks the tracer's refusals: nil options, every one named; a nil
// option given to WithTracing is refused by the handler's New as a nil
// option, as a nil idem option given to handler.WithIdem is.
func TestNew(t *testing.T) {
	t.Parallel()
	_, err := idemqotel.NewTracer(nil, nil, idemqotel.WithKeys(), nil)
	if list := idem.ConfigErrors(err); len(list) != 2 || list[0].Field != "options[0]" || list[1].Field != "options[2]" {
		t.Errorf("newTracer(nil, nil, WithKeys(), nil) = %v, want ConfigErrors for options[0] and options[2]", err)
	}
	if _, err := idemqotel.NewTracer(nil, idemqotel.WithConfig(idemqotel.Config{Propagator: nil})); err != nil {
		t.Errorf("a nil Propagator: %v, want the default propagator", err)
	}
	store, _ := memstore.New()
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }
	var ce *idem.ConfigError
	if _, err := handler.New(store, fn, handler.WithRequest(request.Identity{Namespace: "n"}), idemqotel.WithTracing(nil, nil)); !errors.As(err, &ce) || ce.Package != "handler" || ce.Field != "options[1]" {
		t.Errorf("handler.New with WithTracing(nil, nil) = %v, want a ConfigError for handler's options[1]", err)
	}
}
