package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
)

// newConsumer wires dispatch mode's consumer of s's queue, through
// client, around h. consumer.New's error names a setting it refuses.
// (Worker mode's is package worker's.)
func newConsumer(s idemqenv.Settings, client *sqs.Client, h handler.Handler, logger *slog.Logger) (*consumer.Consumer, error) {
	c := s.Consumer
	return consumer.New(client, c.QueueURL, h, consumer.WithLogger(logger), consumer.WithMaxRunTime(c.MaxRunTime),
		consumer.WithMaxBatches(c.MaxBatches), consumer.WithGracePeriod(c.GracePeriod), consumer.WithVisibilityTimeout(c.Visibility))
}

// runConsumer runs c until SIGTERM or SIGINT, then stops it gracefully
// (consumer.Run), serving its health on IDEMQ_HEALTH_ADDR if set.
func runConsumer(c *consumer.Consumer, healthAddr string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if healthAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /healthz", c.HealthHandler())
		srv := &http.Server{Addr: healthAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		ln, err := net.Listen("tcp", healthAddr)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", idemqenv.HealthAddr, healthAddr, err)
		}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("idemq worker: health server stopped", "err", err.Error())
			}
		}()
		defer srv.Close()
	}
	return c.Run(ctx)
}
