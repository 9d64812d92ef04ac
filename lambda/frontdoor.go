package main

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

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idemqenv"
)

// frontDoorScope is the reference worker's part of front-door mode
// (IDEMQ_MODE=frontdoor, wired by worker.FromEnv): the function
// serves the front door behind a Lambda function URL or an API Gateway
// HTTP API (payload 2.0), whose events carry the IAM caller
// (functionURLHandler), so IDEMQ_FRONTDOOR_SCOPE's scope is told here:
// iam (the default on Lambda) keeps each IAM principal's keys apart
// (iamScope) and refuses a request without one (403); iam-session does
// too, an assumed role's sessions each a caller of their own
// (iamSessionScope); none (the default with IDEMQ_FRONTDOOR_ADDR) shares
// one key space among every caller.
func frontDoorScope(scope string) []frontdoor.Option {
	switch scope {
	case idemqenv.ScopeIAM:
		return []frontdoor.Option{frontdoor.WithScope(iamScope)}
	case idemqenv.ScopeIAMSession:
		return []frontdoor.Option{frontdoor.WithScope(iamSessionScope)}
	}
	return nil
}

// serveFrontDoor serves h: plain HTTP on addr until SIGTERM or SIGINT,
// or, with no addr, Lambda's function URL events.
func serveFrontDoor(h http.Handler, addr string) error {
	if addr == "" {
		lambda.Start(functionURLHandler(h))
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("IDEMQ_FRONTDOOR_ADDR=%s: %w", addr, err)
	}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
