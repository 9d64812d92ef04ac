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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storeenv"
	"github.com/idemq/idemq/producer"
	idemqrequest "github.com/idemq/idemq/request"
)

// The variables of front-door mode: with IDEMQ_MODE=frontdoor the function
// serves the HTTP front door (package frontdoor) behind a Lambda function
// URL or an API Gateway HTTP API (payload 2.0) instead of consuming the
// queue: it enqueues each POSTed request once per Idempotency-Key on
// IDEMQ_FRONTDOOR_QUEUE_URL, and answers each key's status from the
// worker's records, in the same store (IDEMQ_STORE, IDEMQ_TABLE, ...),
// under the worker's IDEMQ_NAMESPACE, which it requires. IDEMQ_KEY_FIELD
// or IDEMQ_KEY_FIELDS (the worker's key rule: one request.Identity for the
// front door and its producer, as for the handler), IDEMQ_RECORD_EXPIRY
// (how long an accepted key is remembered), IDEMQ_SQS_ENDPOINT and the
// blob store's variables (to read results the worker offloaded) apply as
// in worker mode; IDEMQ_PROVIDER_URL is not needed. IDEMQ_FRONTDOOR_SCOPE says whose key is it: iam (the default on
// Lambda) keeps each IAM caller's keys apart (iamScope) and refuses a
// request without one (403); none (the default with IDEMQ_FRONTDOOR_ADDR)
// shares one key space among every caller.
const (
	envFrontQueueURL   = "IDEMQ_FRONTDOOR_QUEUE_URL"      // the worker's queue, to send requests to; required in front-door mode
	envFrontPath       = "IDEMQ_FRONTDOOR_PATH"           // where requests are posted; default frontdoor.DefaultPath
	envFrontMaxBody    = "IDEMQ_FRONTDOOR_MAX_BODY_BYTES" // largest request body; default frontdoor.DefaultMaxBodyBytes
	envFrontAddr       = "IDEMQ_FRONTDOOR_ADDR"           // host:port: serve plain HTTP there, off Lambda (local runs, containers); default: serve Lambda
	envFrontScope      = "IDEMQ_FRONTDOOR_SCOPE"          // whose key is it: iam (each IAM caller's keys its own; default on Lambda) or none (one key space; default with IDEMQ_FRONTDOOR_ADDR)
	scopeIAM           = "iam"
	scopeNone          = "none"
	modeWorker         = "worker"
	modeFrontDoor      = "frontdoor"
	frontDoorModeUsage = envMode + "=" + modeFrontDoor
)

// frontDoorConfig is front-door mode's part of the configuration.
type frontDoorConfig struct {
	on           bool
	queueURL     string
	path         string // "": the library's default
	maxBodyBytes int    // 0: the library's default
	addr         string // "": serve Lambda
	scope        string // scopeIAM: each IAM caller's keys are its own (iamScope); scopeNone: one key space
}

// checkFrontDoor reads front-door mode's variables into c. Without
// IDEMQ_MODE=frontdoor any of the others is a mistake, not a setting.
func checkFrontDoor(c *config, getenv func(string) string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	fc := &c.frontDoor
	fc.on = strings.ToLower(getenv(envMode)) == modeFrontDoor // loadConfig refused other modes

	fc.queueURL, fc.path, fc.addr = getenv(envFrontQueueURL), getenv(envFrontPath), getenv(envFrontAddr)
	maxBody, scope := getenv(envFrontMaxBody), getenv(envFrontScope)
	if !fc.on {
		for _, v := range []struct{ name, value string }{{envFrontQueueURL, fc.queueURL}, {envFrontPath, fc.path}, {envFrontMaxBody, maxBody}, {envFrontAddr, fc.addr}, {envFrontScope, scope}} {
			if v.value != "" {
				bad("%s is set but %s is not: it is a setting of front-door mode", v.name, frontDoorModeUsage)
			}
		}
		return errs
	}
	if fc.queueURL == "" {
		bad("%s is required with %s: the URL of the worker's queue", envFrontQueueURL, frontDoorModeUsage)
	} else if err := checkURL(fc.queueURL); err != nil {
		bad("%s: %v", storeenv.ShowVar(envFrontQueueURL, fc.queueURL), err)
	}
	if c.namespace == "" {
		bad("%s is required with %s: the worker's namespace, under which the front door reads its records", envNamespace, frontDoorModeUsage)
	}
	if c.consumer.queueURL != "" {
		bad("%s and %s are both set: a function is a front door or a consumer", envConsumerQueueURL, frontDoorModeUsage)
	}
	if fc.addr != "" {
		if _, _, err := net.SplitHostPort(fc.addr); err != nil {
			bad("%s=%q: want host:port, like 127.0.0.1:8080", envFrontAddr, fc.addr)
		}
	}
	// Whose key is it: on Lambda the IAM caller's, unless told there is
	// none (AuthType NONE); off Lambda no request carries an IAM caller.
	switch fc.scope = strings.ToLower(scope); {
	case fc.scope == "" && fc.addr == "":
		fc.scope = scopeIAM
	case fc.scope == "":
		fc.scope = scopeNone
	case fc.scope == scopeIAM && fc.addr != "":
		bad("%s=%s with %s: a plain HTTP server has no IAM caller to scope keys by; set %s=%s (one key space for every caller)", envFrontScope, scopeIAM, envFrontAddr, envFrontScope, scopeNone)
	case fc.scope != scopeIAM && fc.scope != scopeNone:
		bad("%s=%q: want %s (each IAM caller's keys its own) or %s (one key space shared by every caller)", envFrontScope, scope, scopeIAM, scopeNone)
	}
	if maxBody != "" {
		var err error
		if fc.maxBodyBytes, err = strconv.Atoi(maxBody); err != nil || fc.maxBodyBytes < 1 {
			bad("%s=%q: want a size in bytes of at least 1", envFrontMaxBody, maxBody)
		}
	}
	return errs
}

// newFrontDoor wires front-door mode: the front door over store (the
// worker's), reading offloaded results from blobs (nil: none), sending
// through an SQS client of awsCfg. frontdoor.New's error names a setting
// it refuses.
func newFrontDoor(cfg config, awsCfg aws.Config, store frontdoor.Store, blobs idem.Blobs, conns int, logger *slog.Logger) (http.Handler, error) {
	client := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
		o.HTTPClient = keepConnections(o.HTTPClient, conns)
		if cfg.sqsEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.sqsEndpoint)
		}
	})
	id := cfg.identity() // the handler's (wire), the front door's and its producer's
	opts := []frontdoor.Option{frontdoor.WithRequest(id), frontdoor.WithLogger(logger),
		frontdoor.WithPath(cfg.frontDoor.path), frontdoor.WithMaxBodyBytes(cfg.frontDoor.maxBodyBytes),
		frontdoor.WithIdem(idem.WithExpiry(cfg.expiry), idem.WithBlobs(blobs), idem.WithOffloadAbove(cfg.offloadAbove))}
	if cfg.frontDoor.scope == scopeIAM {
		opts = append(opts, frontdoor.WithScope(iamScope))
	}
	q, err := newFrontDoorQueue(client, cfg.frontDoor.queueURL, id)
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
		return fmt.Errorf("%s=%s: %w", envFrontAddr, addr, err)
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
