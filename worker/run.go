package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/idemq/idemq/idemqenv"
)

// Run serves w. On Lambda it is lambda.StartWithOptions over w.Handler
// with ctx, which does not return. In consumer mode
// (IDEMQ_CONSUMER_QUEUE_URL) it runs w.Consumer until ctx is done or the
// process gets SIGTERM or SIGINT, then stops it gracefully
// (consumer.Run), serving GET /healthz on IDEMQ_HEALTH_ADDR if set; it
// returns nil after a graceful stop.
func (w *Worker) Run(ctx context.Context) error {
	if w.Consumer == nil {
		lambda.StartWithOptions(w.Handler, lambda.WithContext(ctx))
		return nil
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	if addr := w.Settings.Consumer.HealthAddr; addr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /healthz", w.Consumer.HealthHandler())
		srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", idemqenv.HealthAddr, addr, err)
		}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				w.cfg.Logger.Error("idemq worker: health server stopped", "err", err.Error())
			}
		}()
		defer srv.Close()
	}
	return w.Consumer.Run(ctx)
}
