// Command function is the example app's order handler: the team's own
// Lambda function, fed by the team's own queue, with idemq's handler in
// front of its work, so that a second delivery of an order is answered
// from its record instead of confirming (and charging) it again.
//
// FOLLOW-UP (issue 35, "the worker's contract as a library"): config reads
// the IDEMQ_* variables the Attachment sets by hand, only those this
// function needs, and makes one start-up check (the record expiry against
// the queue's settings). When the worker library lands on main, replace
// config and newHandler with its one call, which reads every variable from
// the one table of settings and makes all of the reference worker's
// start-up checks.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/queue"
)

func main() {
	cfg, err := config(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "order handler: %v\n", err)
		os.Exit(1)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "order handler: AWS configuration: %v\n", err)
		os.Exit(1)
	}
	h, err := newHandler(cfg, awsCfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "order handler: %v\n", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// order is a message of the orders queue.
type order struct {
	Key      string `json:"idempotency_key"`
	Item     string `json:"item"`
	Quantity int    `json:"quantity"`
}

// confirm is the team's work: once per order, whatever the deliveries.
func confirm(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	var o order
	if err := json.Unmarshal([]byte(msg.Body), &o); err != nil {
		return nil, fmt.Errorf("order %s: %w", msg.MessageId, err)
	}
	if o.Item == "" || o.Quantity < 1 {
		return nil, fmt.Errorf("order %s: want an item and a quantity of at least 1", o.Key)
	}
	slog.InfoContext(ctx, "order confirmed", "order", o.Key, "item", o.Item, "quantity", o.Quantity)
	return json.Marshal(map[string]any{"order": o.Key, "item": o.Item, "quantity": o.Quantity, "status": "confirmed"})
}

// settings are the IDEMQ_* variables the Attachment gives the function.
type settings struct {
	table, namespace, keyField, emfNamespace, blobBucket, blobPrefix string
	expiry                                                           time.Duration
	backoff                                                          bool
}

// config reads the settings, and checks the record expiry against the
// queue's settings (IDEMQ_QUEUE): a record must outlive every delivery of
// its message, or a late one runs the work again.
func config(getenv func(string) string) (settings, error) {
	s := settings{
		table: getenv("IDEMQ_TABLE"), namespace: getenv("IDEMQ_NAMESPACE"), keyField: getenv("IDEMQ_KEY_FIELD"),
		emfNamespace: getenv("IDEMQ_EMF_NAMESPACE"), blobBucket: getenv("IDEMQ_BLOB_BUCKET"), blobPrefix: getenv("IDEMQ_BLOB_PREFIX"),
	}
	var errs []error
	for name, v := range map[string]string{"IDEMQ_TABLE": s.table, "IDEMQ_NAMESPACE": s.namespace, "IDEMQ_KEY_FIELD": s.keyField, "IDEMQ_QUEUE": getenv("IDEMQ_QUEUE")} {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is unset: attach idemq to this function (idemqcdk.NewAttachment)", name))
		}
	}
	var err error
	if s.expiry, err = time.ParseDuration(getenv("IDEMQ_RECORD_EXPIRY")); err != nil {
		errs = append(errs, fmt.Errorf("IDEMQ_RECORD_EXPIRY: %w", err))
	}
	if s.backoff, err = strconv.ParseBool(getenv("IDEMQ_BACKOFF")); err != nil {
		errs = append(errs, fmt.Errorf("IDEMQ_BACKOFF: %w", err))
	}
	var q queue.Settings
	if raw := getenv("IDEMQ_QUEUE"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &q); err != nil {
			errs = append(errs, fmt.Errorf("IDEMQ_QUEUE: %w", err))
		} else if s.expiry > 0 {
			// The queue's own deliveries must find their records; a
			// redrive from the dead-letter queue too, with the expiry the
			// Attachment computes (one set shorter deploys with a warning).
			inQueue := q
			inQueue.DeadLetterRetention = 0
			if err := queue.CheckExpiry(inQueue, s.expiry); err != nil {
				errs = append(errs, fmt.Errorf("IDEMQ_RECORD_EXPIRY %s for IDEMQ_QUEUE: %w", s.expiry, err))
			}
		}
	}
	return s, errors.Join(errs...)
}

// newHandler is idemq's handler around confirm, as the settings say.
func newHandler(s settings, awsCfg aws.Config) (handler.Handler, error) {
	store, err := dynamostore.New(dynamodb.NewFromConfig(awsCfg), s.table)
	if err != nil {
		return nil, err
	}
	idemOpts := []idem.Option{idem.WithExpiry(s.expiry)}
	if s.blobBucket != "" {
		blobs, err := s3blob.New(s3.NewFromConfig(awsCfg), s.blobBucket, s.blobPrefix)
		if err != nil {
			return nil, err
		}
		idemOpts = append(idemOpts, idem.WithBlobs(blobs))
	}
	opts := []handler.Option{
		handler.WithNamespace(s.namespace),
		handler.WithKeyField(s.keyField),
		handler.WithIdem(idemOpts...),
	}
	if s.emfNamespace != "" {
		opts = append(opts, handler.WithEMF(os.Stdout, s.emfNamespace))
	}
	if s.backoff {
		opts = append(opts, handler.WithBackoff(sqs.NewFromConfig(awsCfg)))
	}
	return handler.New(store, confirm, opts...)
}
