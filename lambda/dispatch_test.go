package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
)

// Dispatch mode wires the durable dispatcher from the environment: the
// namespace and the key field, the function; duplicate deliveries start
// one execution, named after the record key the worker's handler claims.
func TestDispatchMode(t *testing.T) {
	t.Parallel()
	fake := durabletest.NewServer(t)
	vars := env("IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod", "IDEMQ_LAMBDA_ENDPOINT", fake.URL,
		"IDEMQ_KEY_FIELD", "request_id", "IDEMQ_NAMESPACE", "summ", "IDEMQ_CONCURRENCY", "4")
	p, err := start(context.Background(), vars, slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err != nil {
		t.Fatal(err)
	}
	if p.consumer != nil {
		t.Fatal("a consumer without IDEMQ_CONSUMER_QUEUE_URL")
	}
	m := events.SQSMessage{MessageId: "m1", Body: `{"request_id":"order-1","prompt":"p"}`}
	resp, err := p.handler(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m, m}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("response %+v, %v; want every record acknowledged", resp, err)
	}
	execs := fake.Executions()
	if len(execs) != 1 || execs[0].Name != durable.ExecutionName("summ#order-1") || execs[0].Qualifier != "prod" {
		t.Errorf("executions %+v, want one named %s on summarise:prod", execs, durable.ExecutionName("summ#order-1"))
	}
}

// Dispatch mode reads a natural key as the worker does (IDEMQ_KEY_FIELDS)
// and names the execution after the record key the worker's handler
// claims for it.
func TestDispatchModeKeyFields(t *testing.T) {
	t.Parallel()
	fake := durabletest.NewServer(t)
	vars := env("IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod", "IDEMQ_LAMBDA_ENDPOINT", fake.URL,
		"IDEMQ_KEY_FIELDS", "document_id,version", "IDEMQ_NAMESPACE", "docs")
	p, err := start(context.Background(), vars, slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err != nil {
		t.Fatal(err)
	}
	m := events.SQSMessage{MessageId: "m1", Body: `{"version":1,"document_id":"doc-1","prompt":"p"}`}
	if resp, err := p.handler(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m}}); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("response %+v, %v", resp, err)
	}
	want := durable.ExecutionName("docs#document_id:doc-1:version:1")
	if execs := fake.Executions(); len(execs) != 1 || execs[0].Name != want {
		t.Errorf("executions %+v, want one named %s", execs, want)
	}
}

func TestDispatchConfig(t *testing.T) {
	t.Parallel()
	base := []string{"IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod"}
	with := func(kv ...string) func(string) string { return env(append(append([]string{}, base...), kv...)...) }
	// The variables themselves are idemqenv's (TestReadDispatch); the
	// name prefix dispatch mode read before the namespace did its job is
	// refused, naming what replaced it.
	if err := startErr(with("IDEMQ_DURABLE_NAME_PREFIX", "summ-")); err == nil || !strings.Contains(err.Error(), "IDEMQ_DURABLE_NAME_PREFIX is no longer read") {
		t.Errorf("the name prefix: %v; want it refused as no longer read", err)
	}
	// What the library refuses stops the start-up, after the variable's name.
	for _, tt := range []struct {
		env  func(string) string
		want string
	}{
		{env("IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise"), "IDEMQ_DURABLE_FUNCTION: durable: function"},
		{with("IDEMQ_NAMESPACE", "a\x01b"), "IDEMQ_NAMESPACE: request: Namespace"},
	} {
		_, err := start(context.Background(), tt.env, slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("start: %v; want %q", err, tt.want)
		}
	}
}

// The dispatcher refuses the front door's settings and the tracing it
// would ignore, as it refuses the store's. The names are spelled out, as
// an operator writes them.
func TestDispatchRefusesOtherModesSettings(t *testing.T) {
	t.Parallel()
	for _, kv := range [][]string{{"IDEMQ_FRONTDOOR_PATH", "/jobs"}, {"IDEMQ_FRONTDOOR_SCOPE", "none"}, {"IDEMQ_TRACING", "otel"}} {
		err := startErr(env("IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod", kv[0], kv[1]))
		if err == nil || !strings.Contains(err.Error(), kv[0]+" is set but IDEMQ_MODE is dispatch") {
			t.Errorf("dispatch with %s=%s: %v; want it refused, named", kv[0], kv[1], err)
		}
	}
}
