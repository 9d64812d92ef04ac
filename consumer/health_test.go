package consumer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemq/idemq/consumer"
)

func TestHealthHandler(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	c := must(consumer.New(q, "url", b.handler(), consumer.WithConfig(consumer.Config{Logger: b.log, WaitTime: time.Second})))
	status := func() int {
		rec := httptest.NewRecorder()
		c.HealthHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rec.Code
	}
	if s := status(); s != http.StatusServiceUnavailable {
		t.Errorf("before Start: %d; want 503", s)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != http.StatusOK {
		t.Errorf("running: %d; want 200", s)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != http.StatusServiceUnavailable {
		t.Errorf("stopped: %d; want 503", s)
	}
}
