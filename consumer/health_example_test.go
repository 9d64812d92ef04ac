package consumer_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
)

// HealthHandler is a container's health check: 200 while the consumer
// receives, 503 with the reason before it starts and once it stops.
func ExampleConsumer_HealthHandler() {
	store, _ := memstore.New()
	h, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil },
		handler.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	c, err := consumer.New(newFakeSQS(30*time.Second), "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", h,
		consumer.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	probe := func() {
		w := httptest.NewRecorder()
		c.HealthHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	probe()
	if err := c.Start(context.Background()); err != nil {
		log.Fatal(err)
	}
	probe()
	if err := c.Stop(context.Background()); err != nil {
		log.Fatal(err)
	}
	probe()
	// Output:
	// 503 consumer: not started
	// 200 ok
	// 503 consumer: stopped
}
