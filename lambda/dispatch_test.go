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
	vars := env(envMode, modeDispatch, envDurableFunction, "summarise:prod", envLambdaEndpoint, fake.URL,
		envKeyField, "request_id", envNamespace, "summ", envConcurrency, "4")
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
	vars := env(envMode, modeDispatch, envDurableFunction, "summarise:prod", envLambdaEndpoint, fake.URL,
		envKeyFields, "document_id,version", envNamespace, "docs")
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
	base := []string{envMode, modeDispatch, envDurableFunction, "summarise:prod"}
	with := func(kv ...string) func(string) string { return env(append(append([]string{}, base...), kv...)...) }
	c, err := loadConfig(with(envConsumerQueueURL, "http://127.0.0.1:9324/000000000000/jobs", envSQSEndpoint, "http://127.0.0.1:9324"))
	if err != nil {
		t.Fatal(err)
	}
	if c.dispatch.function != "summarise:prod" || c.consumer.queueURL == "" || c.sqsEndpoint == "" {
		t.Errorf("config %+v", c)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"unknown mode", env(envMode, "dispatcher"), envMode},
		{"no function", env(envMode, modeDispatch), envDurableFunction + " is required"},
		{"a store", with(envTable, "idempotency"), envTable + " is set but " + envMode},
		{"a provider", with(envProviderURL, "http://127.0.0.1:1"), envProviderURL + " is set but " + envMode},
		{"bad endpoint", with(envLambdaEndpoint, "localhost"), envLambdaEndpoint},
		{"SQS endpoint without a consumer", with(envSQSEndpoint, "http://127.0.0.1:9324"), envSQSEndpoint},
		{"bad concurrency", with(envConcurrency, "0"), envConcurrency},
		{"the name prefix", with(envDurablePrefix, "summ-"), envDurablePrefix + " is no longer read"},
	} {
		if _, err := loadConfig(tt.env); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want an error naming %s", tt.name, err, tt.want)
		}
	}
	// What the library refuses stops the start-up, after the variable's name.
	for _, tt := range []struct {
		env  func(string) string
		want string
	}{
		{env(envMode, modeDispatch, envDurableFunction, "summarise"), envDurableFunction + ": durable: function"},
		{with(envNamespace, "a\x01b"), envNamespace + ": request: Namespace"},
	} {
		_, err := start(context.Background(), tt.env, slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("start: %v; want %q", err, tt.want)
		}
	}
}
