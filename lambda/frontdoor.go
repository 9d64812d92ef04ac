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
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/worker"
)

// wireFrontDoor wires front-door mode (IDEMQ_MODE=frontdoor): the
// function serves the HTTP front door (package frontdoor) behind a Lambda
// function URL or an API Gateway HTTP API (payload 2.0) instead of
// consuming the queue: it enqueues each POSTed request once per
// Idempotency-Key on IDEMQ_FRONTDOOR_QUEUE_URL, and answers each key's
// status from the worker's records, in the same store, opened and checked
// as the worker opens it (worker.OpenStore), under the worker's
// IDEMQ_NAMESPACE. IDEMQ_FRONTDOOR_SCOPE says whose key it is: iam (the
// default on Lambda) keeps each IAM caller's keys apart (iamScope) and
// refuses a request without one (403); none (the default with
// IDEMQ_FRONTDOOR_ADDR) shares one key space among every caller.
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
// through an SQS client of awsCfg. frontdoor.New's error names a setting
// it refuses.
func newFrontDoor(s idemqenv.Settings, awsCfg aws.Config, store frontdoor.Store, blobs idem.Blobs, conns int, logger *slog.Logger) (http.Handler, error) {
	// The front door takes the key's body field only: a request.Identity
	// of another source is refused, naming its variable.
	id := s.Request
	for _, other := range []struct {
		name string
		set  bool
	}{{idemqenv.KeyFields, len(id.KeyFields) > 0}, {idemqenv.KeyAttribute, id.KeyAttribute != ""}, {idemqenv.FingerprintFields, len(id.FingerprintFields) > 0}} {
		if other.set {
			return nil, fmt.Errorf("%s is set with %s=frontdoor: the front door puts the key in the body field %s and checks the whole body, and takes no other source yet",
				other.name, idemqenv.Mode, idemqenv.KeyField)
		}
	}
	client := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
		o.HTTPClient = keepConnections(o.HTTPClient, conns)
		if s.SQSEndpoint != "" {
			o.BaseEndpoint = aws.String(s.SQSEndpoint)
		}
	})
	opts := []frontdoor.Option{frontdoor.WithNamespace(id.Namespace), frontdoor.WithLogger(logger),
		frontdoor.WithKeyField(id.KeyField), frontdoor.WithPath(s.FrontDoor.Path), frontdoor.WithMaxBodyBytes(s.FrontDoor.MaxBodyBytes),
		frontdoor.WithIdem(idem.WithExpiry(s.RecordExpiry), idem.WithBlobs(blobs), idem.WithOffloadAbove(s.Blobs.OffloadAbove))}
	if s.FrontDoor.Scope == idemqenv.ScopeIAM {
		opts = append(opts, frontdoor.WithScope(iamScope))
	}
	enqueue, err := newEnqueuer(client, s.FrontDoor.QueueURL, id.KeyField)
	if err != nil {
		return nil, err
	}
	return frontdoor.New(store, enqueue, opts...)
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

// newEnqueuer sends each request to the worker's queue through the
// producer (package producer): a send whose answer was lost is sent again
// with the same key, and the key is where the worker reads it (keyField).
// On a FIFO queue (its URL ends in .fifo) the key's SHA-256 is the message
// group, so requests are not held behind each other, and the producer
// sets the deduplication id from the key, so SQS drops a re-send within
// its 5-minute window.
func newEnqueuer(client producer.SQSAPI, queueURL, keyField string) (frontdoor.Enqueuer, error) {
	p, err := producer.New(client, queueURL, producer.WithKeyField(keyField))
	if err != nil {
		return nil, err
	}
	fifo := strings.HasSuffix(queueURL, ".fifo")
	return frontdoor.EnqueuerFunc(func(ctx context.Context, key string, body []byte) error {
		m := producer.Message{Key: key, Body: body}
		if fifo {
			sum := sha256.Sum256([]byte(key)) // any key, as 64 hex digits: within the group id's 128 characters
			m.GroupID = hex.EncodeToString(sum[:])
		}
		_, err := p.Send(ctx, m)
		return err
	}), nil
}
