package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestOTLPJSONIsWhatACollectorReads sends spans of every kind of attribute,
// a link, an event and each status through otlpJSON to a server that
// decodes them with the OpenTelemetry Collector's own OTLP/HTTP JSON
// decoder (pdata's ptraceotlp, as its OTLP receiver does), and checks that
// it reads back what the SDK recorded.
func TestOTLPJSONIsWhatACollectorReads(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		received []ptrace.Traces
		headers  []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON(body); err != nil {
			t.Errorf("the collector's decoder refuses the export: %v\n%s", err, body)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		received = append(received, req.Traces())
		headers = append(headers, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer srv.Close()
	exporter, err := newOTLPJSON(srv.URL+"/v1/traces", "Authorization=Basic%20abc, x-other = 1")
	if err != nil {
		t.Fatal(err)
	}
	recorded := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(recorded), sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "worker"))))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	tracer := tp.Tracer("scope-a", trace.WithInstrumentationVersion("1.2"))
	linked := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled, Remote: true})

	ctx, parent := tracer.Start(context.Background(), "parent", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithLinks(trace.Link{SpanContext: linked, Attributes: []attribute.KeyValue{attribute.String("messaging.message.id", "m1")}}),
		trace.WithAttributes(attribute.Bool("b", true), attribute.Int64("i", -9007199254740993), attribute.Float64("f", 1.5),
			attribute.String("s", "é\"x"), attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, 2}),
			attribute.Float64Slice("fs", []float64{0.5}), attribute.StringSlice("ss", []string{"a", "b"})))
	_, child := tracer.Start(ctx, "child")
	child.AddEvent("happened", trace.WithAttributes(attribute.Int("n", 3)))
	child.SetStatus(codes.Error, "it broke")
	child.End()
	parent.SetStatus(codes.Ok, "")
	parent.End()
	_, other := tp.Tracer("scope-b").Start(context.Background(), "other")
	other.End()

	mu.Lock()
	defer mu.Unlock()
	if len(headers) != 3 || headers[0] != "Basic abc" {
		t.Errorf("Authorization headers %q, want Basic abc on each of 3 exports", headers)
	}
	got := map[string]ptrace.Span{}
	scopes := map[string]string{}
	for _, tr := range received {
		for i := range tr.ResourceSpans().Len() {
			rs := tr.ResourceSpans().At(i)
			if v, _ := rs.Resource().Attributes().Get("service.name"); v.Str() != "worker" {
				t.Errorf("resource %v, want service.name worker", rs.Resource().Attributes().AsRaw())
			}
			for j := range rs.ScopeSpans().Len() {
				ss := rs.ScopeSpans().At(j)
				for k := range ss.Spans().Len() {
					s := ss.Spans().At(k)
					got[s.Name()] = s
					scopes[s.Name()] = ss.Scope().Name() + "@" + ss.Scope().Version()
				}
			}
		}
	}
	for _, want := range recorded.GetSpans() {
		s, ok := got[want.Name]
		if !ok {
			t.Errorf("span %q not received", want.Name)
			continue
		}
		if s.TraceID() != pcommon.TraceID(want.SpanContext.TraceID()) || s.SpanID() != pcommon.SpanID(want.SpanContext.SpanID()) ||
			s.ParentSpanID() != pcommon.SpanID(want.Parent.SpanID()) {
			t.Errorf("%s: ids %s/%s under %s, want %s/%s under %s", want.Name, s.TraceID(), s.SpanID(), s.ParentSpanID(),
				want.SpanContext.TraceID(), want.SpanContext.SpanID(), want.Parent.SpanID())
		}
		if s.StartTimestamp().AsTime().UnixNano() != want.StartTime.UnixNano() || s.EndTimestamp().AsTime().UnixNano() != want.EndTime.UnixNano() {
			t.Errorf("%s: times %v–%v, want %v–%v", want.Name, s.StartTimestamp(), s.EndTimestamp(), want.StartTime, want.EndTime)
		}
	}
	p := got["parent"]
	if p.Kind() != ptrace.SpanKindConsumer || p.Status().Code() != ptrace.StatusCodeOk || scopes["parent"] != "scope-a@1.2" || scopes["other"] != "scope-b@" {
		t.Errorf("parent: kind %v status %v scope %q; other's scope %q", p.Kind(), p.Status().Code(), scopes["parent"], scopes["other"])
	}
	wantAttrs := map[string]any{"b": true, "i": int64(-9007199254740993), "f": 1.5, "s": "é\"x",
		"bs": []any{true, false}, "is": []any{int64(1), int64(2)}, "fs": []any{0.5}, "ss": []any{"a", "b"}}
	gotAttrs := p.Attributes().AsRaw()
	for k, v := range wantAttrs {
		if g := gotAttrs[k]; !equalRaw(g, v) {
			t.Errorf("attribute %s = %#v, want %#v", k, g, v)
		}
	}
	if p.Links().Len() != 1 || p.Links().At(0).TraceID() != pcommon.TraceID(linked.TraceID()) || p.Links().At(0).SpanID() != pcommon.SpanID(linked.SpanID()) {
		t.Errorf("parent's links: %d, want the linked context", p.Links().Len())
	} else if v, _ := p.Links().At(0).Attributes().Get("messaging.message.id"); v.Str() != "m1" {
		t.Errorf("link attribute %v, want m1", v)
	}
	c := got["child"]
	if c.Kind() != ptrace.SpanKindInternal || c.Status().Code() != ptrace.StatusCodeError || c.Status().Message() != "it broke" {
		t.Errorf("child: kind %v status %v %q, want internal, error \"it broke\"", c.Kind(), c.Status().Code(), c.Status().Message())
	}
	if c.Events().Len() != 1 || c.Events().At(0).Name() != "happened" {
		t.Errorf("child's events: %d, want happened", c.Events().Len())
	} else if v, _ := c.Events().At(0).Attributes().Get("n"); v.Int() != 3 {
		t.Errorf("event attribute n = %v, want 3", v)
	}
	if o := got["other"]; o.Status().Code() != ptrace.StatusCodeUnset {
		t.Errorf("other: status %v, want unset", o.Status().Code())
	}
}

func equalRaw(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok != bok {
		return false
	}
	if !aok {
		return a == b
	}
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] != bs[i] {
			return false
		}
	}
	return true
}

// TestOTLPJSONRefusals checks the endpoint and headers newOTLPJSON
// refuses, and that a collector's refusal is an export error.
func TestOTLPJSONRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ endpoint, headers string }{
		{"localhost:4318", ""}, {"ftp://h/v1/traces", ""}, {"http:///v1/traces", ""},
		{"http://h/v1/traces", "novalue"}, {"http://h/v1/traces", "=v"}, {"http://h/v1/traces", "k=%zz"},
	} {
		if _, err := newOTLPJSON(tc.endpoint, tc.headers); err == nil {
			t.Errorf("newOTLPJSON(%q, %q) = nil error", tc.endpoint, tc.headers)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadRequest) }))
	defer srv.Close()
	e, err := newOTLPJSON(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	stub := tracetest.SpanStub{Name: "s", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}})}
	if err := e.ExportSpans(context.Background(), tracetest.SpanStubs{stub}.Snapshots()); err == nil {
		t.Error("an export the collector answered 400 returned no error")
	}
}
