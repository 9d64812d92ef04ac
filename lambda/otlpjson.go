package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpJSON is a span exporter that sends OTLP over HTTP in its JSON
// encoding (POST, Content-Type application/json), which every OTLP/HTTP
// receiver takes, the ADOT Lambda layer's collector included. The worker
// has it rather than OpenTelemetry's otlptracehttp, whose protobuf and
// gRPC packages would double the bootstrap's size for a setting that is
// off by default.
type otlpJSON struct {
	url     string
	headers http.Header
	client  *http.Client
}

var _ sdktrace.SpanExporter = (*otlpJSON)(nil)

// newOTLPJSON returns an exporter posting to endpoint (a full URL, path
// included) with headers, a value of OTEL_EXPORTER_OTLP_HEADERS:
// "key=value,key2=value2", values percent-decoded.
func newOTLPJSON(endpoint, headers string) (*otlpJSON, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want an http:// or https:// URL", endpoint)
	}
	h := http.Header{}
	for pair := range strings.SplitSeq(headers, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		value, err := url.PathUnescape(strings.TrimSpace(v))
		if !ok || strings.TrimSpace(k) == "" || err != nil {
			return nil, fmt.Errorf("headers: %q is not key=value", pair)
		}
		h.Set(strings.TrimSpace(k), value)
	}
	return &otlpJSON{url: endpoint, headers: h, client: &http.Client{}}, nil
}

// ExportSpans posts spans as one ExportTraceServiceRequest, under ctx.
func (e *otlpJSON) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(exportRequest(spans))
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp: %s: %s", resp.Status, bytes.TrimSpace(answer))
	}
	return nil
}

// Shutdown has nothing to release.
func (e *otlpJSON) Shutdown(context.Context) error { return nil }

// The OTLP JSON encoding (opentelemetry-proto's trace/v1 and common/v1
// messages): ids in hex, 64-bit integers as strings, enums as numbers.
type (
	jsonRequest struct {
		ResourceSpans []jsonResourceSpans `json:"resourceSpans"`
	}
	jsonResourceSpans struct {
		Resource   jsonResource     `json:"resource"`
		ScopeSpans []jsonScopeSpans `json:"scopeSpans"`
	}
	jsonResource struct {
		Attributes []jsonKeyValue `json:"attributes,omitempty"`
	}
	jsonScopeSpans struct {
		Scope jsonScope  `json:"scope"`
		Spans []jsonSpan `json:"spans"`
	}
	jsonScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	jsonSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		TraceState        string         `json:"traceState,omitempty"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		Name              string         `json:"name"`
		Kind              int            `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []jsonKeyValue `json:"attributes,omitempty"`
		Events            []jsonEvent    `json:"events,omitempty"`
		Links             []jsonLink     `json:"links,omitempty"`
		Status            jsonStatus     `json:"status"`
	}
	jsonEvent struct {
		TimeUnixNano string         `json:"timeUnixNano"`
		Name         string         `json:"name"`
		Attributes   []jsonKeyValue `json:"attributes,omitempty"`
	}
	jsonLink struct {
		TraceID    string         `json:"traceId"`
		SpanID     string         `json:"spanId"`
		TraceState string         `json:"traceState,omitempty"`
		Attributes []jsonKeyValue `json:"attributes,omitempty"`
	}
	jsonStatus struct {
		Message string `json:"message,omitempty"`
		Code    int    `json:"code"`
	}
	jsonKeyValue struct {
		Key   string       `json:"key"`
		Value jsonAnyValue `json:"value"`
	}
	jsonAnyValue struct {
		StringValue *string         `json:"stringValue,omitempty"`
		BoolValue   *bool           `json:"boolValue,omitempty"`
		IntValue    *string         `json:"intValue,omitempty"`
		DoubleValue *float64        `json:"doubleValue,omitempty"`
		ArrayValue  *jsonArrayValue `json:"arrayValue,omitempty"`
	}
	jsonArrayValue struct {
		Values []jsonAnyValue `json:"values"`
	}
)

// OTLP's status codes: not codes.Code's order.
const (
	otlpStatusUnset = 0
	otlpStatusOK    = 1
	otlpStatusError = 2
)

// exportRequest groups spans by resource and instrumentation scope.
func exportRequest(spans []sdktrace.ReadOnlySpan) jsonRequest {
	type scopeKey struct {
		resource attribute.Distinct
		name     string
		version  string
	}
	var req jsonRequest
	resources := map[attribute.Distinct]int{} // → index in req.ResourceSpans
	scopes := map[scopeKey]int{}              // → index in its ResourceSpans' ScopeSpans
	for _, s := range spans {
		res := s.Resource()
		rk := res.Equivalent()
		ri, ok := resources[rk]
		if !ok {
			ri = len(req.ResourceSpans)
			resources[rk] = ri
			req.ResourceSpans = append(req.ResourceSpans, jsonResourceSpans{Resource: jsonResource{Attributes: keyValues(res.Attributes())}})
		}
		scope := s.InstrumentationScope()
		sk := scopeKey{rk, scope.Name, scope.Version}
		si, ok := scopes[sk]
		rs := &req.ResourceSpans[ri]
		if !ok {
			si = len(rs.ScopeSpans)
			scopes[sk] = si
			rs.ScopeSpans = append(rs.ScopeSpans, jsonScopeSpans{Scope: jsonScope{Name: scope.Name, Version: scope.Version}})
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, jsonSpanOf(s))
	}
	return req
}

func jsonSpanOf(s sdktrace.ReadOnlySpan) jsonSpan {
	sc := s.SpanContext()
	out := jsonSpan{
		TraceID:           sc.TraceID().String(),
		SpanID:            sc.SpanID().String(),
		TraceState:        sc.TraceState().String(),
		Name:              s.Name(),
		Kind:              int(s.SpanKind()), // trace.SpanKind numbers its kinds as OTLP does
		StartTimeUnixNano: strconv.FormatInt(s.StartTime().UnixNano(), 10),
		EndTimeUnixNano:   strconv.FormatInt(s.EndTime().UnixNano(), 10),
		Attributes:        keyValues(s.Attributes()),
		Status:            jsonStatus{Code: otlpStatusUnset},
	}
	if p := s.Parent(); p.SpanID().IsValid() {
		out.ParentSpanID = p.SpanID().String()
	}
	for _, ev := range s.Events() {
		out.Events = append(out.Events, jsonEvent{TimeUnixNano: strconv.FormatInt(ev.Time.UnixNano(), 10), Name: ev.Name, Attributes: keyValues(ev.Attributes)})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, jsonLink{TraceID: l.SpanContext.TraceID().String(), SpanID: l.SpanContext.SpanID().String(),
			TraceState: l.SpanContext.TraceState().String(), Attributes: keyValues(l.Attributes)})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = jsonStatus{Code: otlpStatusError, Message: st.Description}
	case codes.Ok:
		out.Status = jsonStatus{Code: otlpStatusOK}
	}
	return out
}

func keyValues(attrs []attribute.KeyValue) []jsonKeyValue {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]jsonKeyValue, len(attrs))
	for i, kv := range attrs {
		out[i] = jsonKeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
	}
	return out
}

func anyValue(v attribute.Value) jsonAnyValue {
	str := func(s string) jsonAnyValue { return jsonAnyValue{StringValue: &s} }
	integer := func(n int64) jsonAnyValue { s := strconv.FormatInt(n, 10); return jsonAnyValue{IntValue: &s} }
	boolean := func(b bool) jsonAnyValue { return jsonAnyValue{BoolValue: &b} }
	double := func(f float64) jsonAnyValue { return jsonAnyValue{DoubleValue: &f} }
	switch v.Type() {
	case attribute.BOOL:
		return boolean(v.AsBool())
	case attribute.INT64:
		return integer(v.AsInt64())
	case attribute.FLOAT64:
		return double(v.AsFloat64())
	case attribute.STRING:
		return str(v.AsString())
	case attribute.BOOLSLICE:
		return arrayOf(v.AsBoolSlice(), boolean)
	case attribute.INT64SLICE:
		return arrayOf(v.AsInt64Slice(), integer)
	case attribute.FLOAT64SLICE:
		return arrayOf(v.AsFloat64Slice(), double)
	case attribute.STRINGSLICE:
		return arrayOf(v.AsStringSlice(), str)
	}
	return str(v.String())
}

// arrayOf is an array value of xs, each made a value by value.
func arrayOf[T any](xs []T, value func(T) jsonAnyValue) jsonAnyValue {
	vs := make([]jsonAnyValue, 0, len(xs))
	for _, x := range xs {
		vs = append(vs, value(x))
	}
	return jsonAnyValue{ArrayValue: &jsonArrayValue{Values: vs}}
}
