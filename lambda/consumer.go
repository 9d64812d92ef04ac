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
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/internal/storeenv"
)

// The variables of consumer mode: with IDEMQ_CONSUMER_QUEUE_URL set the
// worker receives from that queue itself (package consumer) instead of
// serving Lambda, with the same store, options and code.
const (
	envConsumerQueueURL   = "IDEMQ_CONSUMER_QUEUE_URL"    // the queue to consume; unset: run as a Lambda function
	envConsumerMaxRunTime = "IDEMQ_CONSUMER_MAX_RUN_TIME" // Go duration; each batch's deadline; default consumer.DefaultMaxRunTime
	envConsumerBatches    = "IDEMQ_CONSUMER_MAX_BATCHES"  // batches at once; default consumer.DefaultMaxBatches
	envConsumerGrace      = "IDEMQ_CONSUMER_GRACE_PERIOD" // Go duration; running work's time to finish after SIGTERM; default consumer.DefaultGracePeriod
	envConsumerVisibility = "IDEMQ_CONSUMER_VISIBILITY"   // Go duration, whole seconds; default the queue's visibility timeout
	envHealthAddr         = "IDEMQ_HEALTH_ADDR"           // host:port serving GET /healthz in consumer mode; default none
)

// consumerConfig is consumer mode's part of the configuration.
type consumerConfig struct {
	queueURL   string // "": Lambda mode
	maxRunTime time.Duration
	maxBatches int
	grace      time.Duration
	visibility time.Duration
	healthAddr string
}

// checkConsumer reads consumer mode's variables into c. Without
// IDEMQ_CONSUMER_QUEUE_URL any of the others is a mistake, not a setting.
func checkConsumer(c *config, getenv func(string) string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	cc := &c.consumer
	cc.queueURL = getenv(envConsumerQueueURL)
	others := []string{envConsumerMaxRunTime, envConsumerBatches, envConsumerGrace, envConsumerVisibility, envHealthAddr}
	if cc.queueURL == "" {
		for _, name := range others {
			if getenv(name) != "" {
				bad("%s is set but %s is not: it is a setting of consumer mode", name, envConsumerQueueURL)
			}
		}
		return errs
	}
	if err := checkURL(cc.queueURL); err != nil {
		bad("%s: %v", storeenv.ShowVar(envConsumerQueueURL, cc.queueURL), err)
	}
	var err error
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{envConsumerMaxRunTime, &cc.maxRunTime}, {envConsumerGrace, &cc.grace}, {envConsumerVisibility, &cc.visibility}} {
		if *d.to, err = duration(getenv, d.name); err != nil {
			errs = append(errs, err)
		}
	}
	if v := getenv(envConsumerBatches); v != "" {
		if cc.maxBatches, err = strconv.Atoi(v); err != nil || cc.maxBatches < 1 {
			bad("%s=%q: want a whole number of at least 1", envConsumerBatches, v)
		}
	}
	if cc.healthAddr = getenv(envHealthAddr); cc.healthAddr != "" {
		if _, _, err := net.SplitHostPort(cc.healthAddr); err != nil {
			bad("%s=%q: want host:port, like :8080", envHealthAddr, cc.healthAddr)
		}
	}
	// The back-off gives messages back to the consumed queue.
	if c.queueURL != "" && c.queueURL != cc.queueURL {
		bad("%s and %s name different queues: in consumer mode the back-off uses the consumed queue; unset %s", envQueueURL, envConsumerQueueURL, envQueueURL)
	}
	return errs
}

// newConsumer wires consumer mode: the consumer of cfg's queue, through
// client, around h. consumer.New's error names a setting it refuses.
func newConsumer(cfg config, client *sqs.Client, h handler.Handler, logger *slog.Logger) (*consumer.Consumer, error) {
	cc := cfg.consumer
	opts := []consumer.Option{consumer.WithLogger(logger), consumer.WithMaxRunTime(cc.maxRunTime),
		consumer.WithMaxBatches(cc.maxBatches), consumer.WithGracePeriod(cc.grace), consumer.WithVisibilityTimeout(cc.visibility)}
	return consumer.New(client, cc.queueURL, h, opts...)
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
			return fmt.Errorf("%s=%s: %w", envHealthAddr, healthAddr, err)
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
