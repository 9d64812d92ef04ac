package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/worker"
)

// attached is the environment idemqcdk.NewAttachment gives the function
// for the example app's queue (main_test.go checks the template's).
var attached = map[string]string{
	"IDEMQ_TABLE":         "Orders-IdemqTable",
	"IDEMQ_RECORD_EXPIRY": "540h38m0s",
	"IDEMQ_QUEUE":         `{"retention":"96h0m0s","visibilityTimeout":"6m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`,
	"IDEMQ_NAMESPACE":     "orders",
	"IDEMQ_KEY_FIELD":     "idempotency_key",
	"IDEMQ_BACKOFF":       "true",
	"IDEMQ_EMF_NAMESPACE": "idemq",
	"IDEMQ_BLOB_BUCKET":   "orders-results",
	"IDEMQ_BLOB_PREFIX":   "idemq/",
}

func getenv(over map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return attached[k]
	}
}

// TestStartupCheck checks that the function starts with the environment
// the Attachment gives it, and refuses to start, naming the variable,
// with a record expiry shorter than the queue's messages live, settings
// that do not read, or a variable missing. It makes no request: the
// stores and clients are made, not called.
func TestStartupCheck(t *testing.T) {
	ctx := context.Background()
	opts := []worker.Option{worker.WithAWSConfig(aws.Config{Region: "us-east-1"}), worker.WithLogger(slog.New(slog.DiscardHandler)), worker.WithEMF(io.Discard)}
	w, err := worker.FromEnv(ctx, getenv(nil), confirm, opts...)
	if err != nil {
		t.Fatalf("the attached environment: %v", err)
	}
	w.Close()
	if s := w.Settings; s.Request.Namespace != "orders" || s.Store.Table != "Orders-IdemqTable" || !s.Backoff || w.Blobs == nil {
		t.Errorf("settings %+v, want the attached ones", s)
	}
	for _, c := range []struct {
		name string
		over map[string]string
		says string
	}{
		{"an expiry shorter than the message lifetime", map[string]string{"IDEMQ_RECORD_EXPIRY": "96h"}, "IDEMQ_RECORD_EXPIRY=96h0m0s against IDEMQ_QUEUE"},
		{"queue settings that are not JSON", map[string]string{"IDEMQ_QUEUE": "5 receives"}, "IDEMQ_QUEUE"},
		{"no table", map[string]string{"IDEMQ_TABLE": ""}, "IDEMQ_TABLE is required"},
		{"a back-off that is no bool", map[string]string{"IDEMQ_BACKOFF": "maybe"}, `IDEMQ_BACKOFF="maybe"`},
		{"a bucket given as a URL", map[string]string{"IDEMQ_BLOB_BUCKET": "s3://orders-results"}, "IDEMQ_BLOB_BUCKET"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := worker.FromEnv(ctx, getenv(c.over), confirm, opts...); err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("FromEnv: %v, want an error saying %q", err, c.says)
			}
		})
	}
}

// TestConfirm checks the team's work on its own.
func TestConfirm(t *testing.T) {
	out, err := confirm(context.Background(), events.SQSMessage{Body: `{"idempotency_key":"order-1","item":"book","quantity":2}`})
	if err != nil || string(out) != `{"item":"book","order":"order-1","quantity":2,"status":"confirmed"}` {
		t.Errorf("confirm: %s, %v", out, err)
	}
	if _, err := confirm(context.Background(), events.SQSMessage{Body: `{"idempotency_key":"order-2","item":"book"}`}); err == nil {
		t.Error("an order without a quantity was confirmed")
	}
}
