package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// The worker wired by newHandler, in process, with the memory store.
func TestWorkerInProcess(t *testing.T) {
	t.Parallel()
	f := newFakeProvider(t)
	h, err := newHandler(context.Background(), config{
		store: "memory", keyField: "idempotency_key", providerURL: f.URL + "/v1", namespace: "worker-test",
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id, body string) events.SQSMessage {
		return events.SQSMessage{MessageId: id, Body: body, EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:q"}
	}
	invoke := func(msgs ...events.SQSMessage) []string {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, err := h(ctx, events.SQSEvent{Records: msgs})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, f := range resp.BatchItemFailures {
			ids = append(ids, f.ItemIdentifier)
		}
		return ids
	}
	body := func(key, prompt string) string {
		return fmt.Sprintf(`{"idempotency_key":%q,"model":"m1","prompt":%q,"max_tokens":16}`, key, prompt)
	}

	got := invoke(
		rec("m1", body("k1", "one")), rec("m2", body("k1", "one")), rec("m3", body("k2", "flaky two")),
		rec("m4", `{"idempotency_key":"k3","model":"m1"}`), // no prompt
	)
	if want := []string{"m3", "m4"}; !slices.Equal(got, want) {
		t.Errorf("failures %v, want %v", got, want)
	}
	got = invoke(rec("m5", body("k1", "one")), rec("m3", body("k2", "flaky two")))
	if len(got) != 0 {
		t.Errorf("failures %v on redelivery, want none", got)
	}
	if a, b := f.count("one"), f.count("flaky two"); a != 1 || b != 2 {
		t.Errorf("provider requests: %d for k1 (want 1), %d for k2 (want 2: a 500, then the retry)", a, b)
	}
	var sent completionRequest
	for _, r := range f.all() {
		if r.Prompt == "one" {
			sent = r.Body
		}
	}
	if sent.MaxTokens == nil || *sent.MaxTokens != 16 || sent.Model != "m1" {
		raw, _ := json.Marshal(sent)
		t.Errorf("request sent %s", raw)
	}
}

func TestNewHandlerNeedsANamespaceOutsideLambda(t *testing.T) {
	t.Parallel()
	_, err := newHandler(context.Background(), config{store: "memory", keyField: "k", providerURL: "http://127.0.0.1:1"}, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Error("no error without a namespace outside Lambda")
	}
}
