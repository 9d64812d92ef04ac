package worker

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

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/idemq/idemq/consumer"
)

// lambdaRuntimeAPI is the variable Lambda's runtime API is found by,
// which aws-lambda-go needs to serve.
const lambdaRuntimeAPI = "AWS_LAMBDA_RUNTIME_API"

// ErrNotLambda is Run's error for a Worker that FromEnv wired outside
// Lambda and not in consumer mode: there is nothing to serve.
var ErrNotLambda = fmt.Errorf("worker: not in Lambda (%s is unset) and no IDEMQ_CONSUMER_QUEUE_URL: set it to consume that queue here, or run in Lambda", lambdaRuntimeAPI)

// Run serves w's Handler (worker and dispatch modes). On Lambda it is
// lambda.StartWithOptions over w.Handler with ctx, which does not return.
// In consumer mode (IDEMQ_CONSUMER_QUEUE_URL) it runs w.Consumer until
// ctx is done or the process gets SIGTERM or SIGINT, then stops it
// gracefully (consumer.Run), serving GET /healthz on IDEMQ_HEALTH_ADDR if
// set; it returns nil after a graceful stop. A front door (w.FrontDoor)
// is served by an HTTP server or a function URL's adapter, not by Run. A
// Worker FromEnv wired neither in Lambda (its getenv has no
// AWS_LAMBDA_RUNTIME_API) nor in consumer mode returns ErrNotLambda at
// once.
func (w *Worker) Run(ctx context.Context) error {
	switch {
	case w.Handler == nil:
		return errors.New("worker: Run serves a handler, and this Worker has none: serve its FrontDoor over HTTP or behind a function URL")
	case w.Consumer == nil && w.offLambda:
		return ErrNotLambda
	case w.Consumer == nil:
		lambda.StartWithOptions(w.Handler, lambda.WithContext(ctx))
		return nil
	}
	return runConsumer(ctx, w.Consumer, w.Settings.Consumer.HealthAddr, w.cfg.Logger)
}

// runConsumer runs c until ctx is done or the process gets SIGTERM or
// SIGINT, then stops it gracefully (consumer.Run), serving c's health
// (GET /healthz) on healthAddr unless it is "". It returns nil after a
// graceful stop.
func runConsumer(ctx context.Context, c *consumer.Consumer, healthAddr string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	if healthAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /healthz", c.HealthHandler())
		srv := &http.Server{Addr: healthAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		ln, err := net.Listen("tcp", healthAddr)
		if err != nil {
			return fmt.Errorf("IDEMQ_HEALTH_ADDR=%s: %w", healthAddr, err)
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
