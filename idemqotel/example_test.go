package idemqotel_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idemqotel"
	"github.com/idemq/idemq/request"
)

// A batch of two deliveries of one request, traced: one batch span, a span
// per record with its outcome, and the store calls under the record that
// made them.
func Example() {
	exporter := tracetest.NewInMemoryExporter() // in production: OTLP, to the ADOT collector
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	store, _ := memstore.New()
	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		return []byte("summary"), nil
	}, handler.WithRequest(request.Identity{Namespace: "summarise"}), idemqotel.WithTracing(tp),
		handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		panic(err)
	}

	_, _ = h(context.Background(), handlertest.Event(
		handlertest.Message("m1", `{"idempotency_key":"doc-4471"}`),
		handlertest.Message("m2", `{"idempotency_key":"doc-4471"}`)))

	for _, s := range exporter.GetSpans() { // in the order they ended
		line := s.Name
		for _, kv := range s.Attributes {
			switch kv.Key {
			case "messaging.message.id", idemqotel.OutcomeKey, idemqotel.ClaimAnswerKey, "messaging.batch.message_count":
				line += fmt.Sprintf(" %s=%s", kv.Key, kv.Value.String())
			}
		}
		fmt.Println(line)
	}
	// Output:
	// idemq claim idemq.claim.answer=claimed
	// idemq complete
	// idemq record messaging.message.id=m1 idemq.outcome=executed
	// idemq record messaging.message.id=m2 idemq.outcome=copy
	// process handlertest messaging.batch.message_count=2
}
