package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	idemqrequest "github.com/idemq/idemq/request"
)

// otlpServer is an OTLP/HTTP collector that keeps the bodies of the
// trace exports it receives.
type otlpServer struct {
	*httptest.Server
	mu      sync.Mutex
	exports [][]byte
}

func newOTLPServer(t *testing.T, path string) *otlpServer {
	s := &otlpServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != path || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("collector got %s %s (%s), want a POST of JSON to %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), path)
		}
		s.mu.Lock()
		s.exports = append(s.exports, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *otlpServer) received() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Join(s.exports, nil)
}

// TestTracingSendsEachBatchsSpans checks that with tracing on the worker's
// handler has sent a batch's spans (batch, record, store calls) to the
// collector when it answers, at either endpoint variable.
func TestTracingSendsEachBatchsSpans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, variable, suffix string }{
		{"base endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", ""},
		{"traces endpoint", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/custom/traces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := "/v1/traces"
			if tc.suffix != "" {
				path = tc.suffix
			}
			collector := newOTLPServer(t, path)
			tr, err := newTracing(env(tc.variable, collector.URL+tc.suffix))
			if err != nil {
				t.Fatal(err)
			}
			store, err := memstore.New()
			if err != nil {
				t.Fatal(err)
			}
			h := tr.flushing(must(handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte("r"), nil },
				handler.WithRequest(idemqrequest.Identity{Namespace: "traced"}), tr.option("otel"))))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: `{"idempotency_key":"k"}`,
				EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}}})
			if err != nil || len(resp.BatchItemFailures) > 0 {
				t.Fatalf("batch: %v %v", resp, err)
			}
			got := collector.received()
			for _, name := range []string{"process q", "idemq record", "idemq claim", "idemq complete"} {
				if !bytes.Contains(got, []byte(name)) {
					t.Errorf("the collector has no span %q when the batch answers (%d bytes received)", name, len(got))
				}
			}
		})
	}
}

// TestTracingFlushFailureChangesNothing checks that a collector that
// cannot be reached loses the spans, not the batch's answer.
func TestTracingFlushFailureChangesNothing(t *testing.T) {
	t.Parallel()
	tr, err := newTracing(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := memstore.New()
	if err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("no")
	h := tr.flushing(must(handler.New(store, func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if msg.MessageId == "m2" {
			return nil, errNo
		}
		return []byte("r"), nil
	}, handler.WithRequest(idemqrequest.Identity{Namespace: "traced"}), handler.WithLogger(slog.New(slog.DiscardHandler)), tr.option("otel"))))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"idempotency_key":"k1"}`}, {MessageId: "m2", Body: `{"idempotency_key":"k2"}`}}})
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "m2" {
		t.Errorf("flushing handler returned %v, %v; want m2 reported, as without tracing", resp, err)
	}
}

// TestXRayTraceIDs checks that the worker's trace ids start with the time
// in epoch seconds, as X-Ray's do, and that its ids are valid.
func TestXRayTraceIDs(t *testing.T) {
	t.Parallel()
	before := time.Now().Unix()
	tid, sid := xrayIDs{}.NewIDs(context.Background())
	after := time.Now().Unix()
	if at := int64(binary.BigEndian.Uint32(tid[:4])); at < before || at > after {
		t.Errorf("trace id %s starts with %d, want the time, %d to %d", tid, at, before, after)
	}
	if !tid.IsValid() || !sid.IsValid() || !(xrayIDs{}).NewSpanID(context.Background(), tid).IsValid() {
		t.Errorf("ids %s %s: want valid ones", tid, sid)
	}
}
