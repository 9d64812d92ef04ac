package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestConsumerConfig(t *testing.T) {
	t.Parallel()
	base := []string{envStore, "memory", envProviderURL, "http://127.0.0.1:1", envNamespace, "ns"}
	with := func(kv ...string) func(string) string { return env(append(append([]string{}, base...), kv...)...) }
	const q = "http://127.0.0.1:9324/000000000000/jobs"

	c, err := loadConfig(with(envConsumerQueueURL, q, envConsumerMaxRunTime, "2h", envConsumerBatches, "3",
		envConsumerGrace, "25s", envConsumerVisibility, "60s", envHealthAddr, ":8080",
		envBackoff, "false", envSQSEndpoint, "http://127.0.0.1:9324"))
	if err != nil {
		t.Fatal(err)
	}
	want := consumerConfig{queueURL: q, maxRunTime: 2 * time.Hour, maxBatches: 3, grace: 25 * time.Second, visibility: time.Minute, healthAddr: ":8080"}
	if c.consumer != want || c.sqsEndpoint != "http://127.0.0.1:9324" {
		t.Errorf("consumer config %+v, endpoint %q; want %+v with the SQS endpoint (the consumer's, back-off or not)", c.consumer, c.sqsEndpoint, want)
	}

	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"setting without a queue", with(envConsumerGrace, "10s"), envConsumerGrace + " is set but " + envConsumerQueueURL},
		{"not a URL", with(envConsumerQueueURL, "jobs"), envConsumerQueueURL},
		{"bad duration", with(envConsumerQueueURL, q, envConsumerMaxRunTime, "an hour"), envConsumerMaxRunTime},
		{"bad batches", with(envConsumerQueueURL, q, envConsumerBatches, "0"), envConsumerBatches},
		{"bad health address", with(envConsumerQueueURL, q, envHealthAddr, "8080"), envHealthAddr},
		{"two queues", with(envConsumerQueueURL, q, envQueueURL, "http://127.0.0.1:9324/000000000000/other"), envQueueURL},
	} {
		if _, err := loadConfig(tt.env); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want an error naming %s", tt.name, err, tt.want)
		}
	}

	// A setting the consumer package refuses stops the start-up, named.
	_, err = start(context.Background(), with(envConsumerQueueURL, q, envBackoff, "false", envConsumerVisibility, "1500ms"),
		slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "consumer: VisibilityTimeout") || !strings.Contains(err.Error(), envConsumerVisibility) {
		t.Errorf("start with a visibility of 1.5 s: %v; want the consumer's refusal, naming %s", err, envConsumerVisibility)
	}
	// Lambda mode has no consumer.
	p, err := start(context.Background(), with(envBackoff, "false"), slog.New(slog.DiscardHandler))
	if err != nil || p.consumer != nil || p.handler == nil {
		t.Errorf("start without %s: %+v, %v; want a handler and no consumer", envConsumerQueueURL, p, err)
	}
}
