package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// Consumer mode is package worker's, as the worker's variables say.
func TestConsumerConfig(t *testing.T) {
	t.Parallel()
	base := []string{"IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://127.0.0.1:1", "IDEMQ_NAMESPACE", "ns"}
	with := func(kv ...string) func(string) string { return env(append(append([]string{}, base...), kv...)...) }
	const q = "http://127.0.0.1:9324/000000000000/jobs"

	// A setting the consumer package refuses stops the start-up, named.
	_, err := start(context.Background(), with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_BACKOFF", "false", "IDEMQ_CONSUMER_VISIBILITY", "1500ms"),
		slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err == nil || !strings.Contains(err.Error(), "consumer: VisibilityTimeout") || !strings.Contains(err.Error(), "IDEMQ_CONSUMER_VISIBILITY") {
		t.Errorf("start with a visibility of 1.5 s: %v; want the consumer's refusal, naming IDEMQ_CONSUMER_VISIBILITY", err)
	}
	// In consumer mode, a consumer.
	p, err := start(context.Background(), with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_BACKOFF", "false"), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err != nil || p.consumer == nil || p.worker == nil || p.worker.Consumer != p.consumer {
		t.Errorf("start with IDEMQ_CONSUMER_QUEUE_URL: %+v, %v; want the worker's consumer", p, err)
	}
	// Lambda mode has no consumer.
	p, err = start(context.Background(), with("IDEMQ_BACKOFF", "false"), slog.New(slog.DiscardHandler))
	if err != nil || p.consumer != nil || p.handler == nil {
		t.Errorf("start without IDEMQ_CONSUMER_QUEUE_URL: %+v, %v; want a handler and no consumer", p, err)
	}
}
