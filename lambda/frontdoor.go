package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgenv"
	"github.com/idemq/idemq/idem/redisstore/redisenv"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/sdkhttp"
	"github.com/idemq/idemq/producer"
	idemqrequest "github.com/idemq/idemq/request"
	"github.com/idemq/idemq/worker"
)

// wireFrontDoor wires front-door mode (IDEMQ_MODE=frontdoor): the
// function serves the HTTP front door (package frontdoor) behind a Lambda
// function URL or an API Gateway HTTP API (payload 2.0) instead of
// consuming the queue: it enqueues each POSTed request once per
// Idempotency-Key on IDEMQ_FRONTDOOR_QUEUE_URL, and answers each key's
// status from the worker's records, in the same store, opened and checked
// as the worker opens it (worker.OpenStore), under the worker's
// IDEMQ_NAMESPACE. The worker's key rule (IDEMQ_KEY_FIELD,
// IDEMQ_KEY_FIELDS or IDEMQ_KEY_ATTRIBUTE, and IDEMQ_FINGERPRINT_FIELDS) is
// one request.Identity for the front door and its producer, as for the
// handler. IDEMQ_FRONTDOOR_SCOPE says whose key it is: iam (the default on
// Lambda) keeps each IAM principal's keys apart (iamScope) and refuses a
// request without one (403); iam-session does too, an assumed role's
// sessions each a caller of their own (iamSessionScope); none (the
// default with IDEMQ_FRONTDOOR_ADDR) shares one key space among every
// caller.
func wireFrontDoor(ctx context.Context, s idemqenv.Settings, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsOpts...)
	if err != nil {
		return program{}, fmt.Errorf("AWS configuration: %w", err)
	}
	conns := s.Connections()
	store, _, err := worker.OpenStore(ctx, s.Store, idemqenv.OpenConfig{Connections: conns,
		AWS: func(context.Context) (aws.Config, error) { return awsCfg, nil }}, pgenv.Opener(), redisenv.Opener())
	if err != nil {
		if errors.Is(err, pgstore.ErrTableShape) {
			err = fmt.Errorf("%w; %s", err, migrateHint)
		}
		return program{}, err
	}
	var blobs idem.Blobs // nil: none
	if s.Blobs.Bucket != "" {
		b, err := worker.OpenBlobs(awsCfg, s.Blobs, conns)
		if err != nil {
			return program{}, idemqenv.SettingError(err)
		}
		blobs = b
	}
	fd, err := newFrontDoor(s, awsCfg, store, blobs, conns, logger)
	if err != nil {
		return program{}, idemqenv.SettingError(err)
	}
	return program{frontDoor: fd, frontDoorAddr: s.FrontDoor.Addr}, nil
}

// newFrontDoor wires front-door mode: the front door over store (the
// worker's), reading offloaded results from blobs (nil: none), sending
// through an SQS client of awsCfg by the worker's request.Identity (the
// handler's, the front door's and its producer's). frontdoor.New's error
// names a setting it refuses.
func newFrontDoor(s idemqenv.Settings, awsCfg aws.Config, store frontdoor.Store, blobs idem.Blobs, conns int, logger *slog.Logger) (http.Handler, error) {
	client := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
		o.HTTPClient = sdkhttp.KeepConnections(o.HTTPClient, conns)
		if s.SQSEndpoint != "" {
			o.BaseEndpoint = aws.String(s.SQSEndpoint)
		}
	})
	id := s.Request
	opts := []frontdoor.Option{frontdoor.WithRequest(id), frontdoor.WithLogger(logger),
		frontdoor.WithPath(s.FrontDoor.Path), frontdoor.WithMaxBodyBytes(s.FrontDoor.MaxBodyBytes),
		frontdoor.WithIdem(idem.WithExpiry(s.RecordExpiry), idem.WithClockSkew(s.ClockSkew), idem.WithBlobs(blobs), idem.WithOffloadAbove(s.Blobs.OffloadAbove))}
	switch s.FrontDoor.Scope {
	case idemqenv.ScopeIAM:
		opts = append(opts, frontdoor.WithScope(iamScope))
	case idemqenv.ScopeIAMSession:
		opts = append(opts, frontdoor.WithScope(iamSessionScope))
	}
	q, err := newFrontDoorQueue(client, s.FrontDoor.QueueURL, id)
	if err != nil {
		return nil, err
	}
	return frontdoor.New(store, q, opts...)
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
		return fmt.Errorf("%s=%s: %w", idemqenv.FrontDoorAddr, addr, err)
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

// newFrontDoorQueue is the worker's queue as the front door sends to it:
// the producer (package producer), by the front door's Identity id, so a
// send whose answer was lost is sent again with the same key, and the key
// is where the worker reads it. On a FIFO queue (its URL ends in .fifo)
// each request's group is the SHA-256 of its scope and key, so requests
// are not held behind each other, and the producer sets the deduplication
// id from them, so SQS drops a re-send within its 5-minute window.
func newFrontDoorQueue(client producer.SQSAPI, queueURL string, id idemqrequest.Identity) (frontdoor.Queue, error) {
	p, err := producer.New(client, queueURL, producer.WithRequest(id))
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(queueURL, ".fifo") {
		return p, nil
	}
	return fifoGroups{p}, nil
}

// fifoGroups sends each request in a message group of its own.
type fifoGroups struct{ *producer.Producer }

// Send sends m with the SHA-256 of its scope and key as its group: any
// key, as 64 hex digits, within the group id's 128 characters. The key
// and the scope hold no control character (idem.CheckValue), so the unit
// separator between them joins them one way only.
func (q fifoGroups) Send(ctx context.Context, m producer.Message) (producer.Sent, error) {
	sum := sha256.Sum256([]byte(m.Scope + "\x1f" + m.Key))
	m.GroupID = hex.EncodeToString(sum[:])
	return q.Producer.Send(ctx, m)
}
