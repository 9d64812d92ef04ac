// Command lambda is idemq's reference worker: an SQS-triggered Lambda
// function (provided.al2023, built as bootstrap with -tags lambda.norpc),
// or, with IDEMQ_CONSUMER_QUEUE_URL, a long-running consumer of a queue,
// that sends each message's model request to an OpenAI-compatible provider
// once per idempotency key, and stores the completion as the key's result.
//
// Configuration is read from the environment at start-up; a bad or missing
// variable stops the function with a message naming it (a URL in it shown
// with its password hidden, or not at all):
//
//	IDEMQ_TABLE                    table of idempotency records (required with the dynamodb and postgres stores; on postgres its shape is checked, see -migrate); key prefix on redis
//	IDEMQ_RECORD_EXPIRY            how long records live, a Go duration, at least 60s (default idem.DefaultExpiry; size it with queue.RecordLifetime, the dead-letter queue included)
//	IDEMQ_KEY_FIELD                JSON body field holding the key (default idempotency_key)
//	IDEMQ_KEY_FIELDS               JSON body fields that together make the key, comma-separated, like document_id,version (default none; not with IDEMQ_KEY_FIELD)
//	IDEMQ_LEASE                    claim lease, a Go duration (default: the records' time left plus 10s, the invocation's plus 7.5s)
//	IDEMQ_PROVIDER_URL             OpenAI-compatible base URL, with or without /v1 (required)
//	IDEMQ_PROVIDER_API_KEY         bearer token for the provider (optional; for local runs)
//	IDEMQ_PROVIDER_API_KEY_SECRET  Secrets Manager secret (name or ARN) whose SecretString is the bearer token, read once at start-up (optional; not with IDEMQ_PROVIDER_API_KEY)
//	IDEMQ_HEARTBEAT                extend a running record's lease this often, a Go duration at most half of IDEMQ_LEASE, which it needs (default off)
//	IDEMQ_CONCURRENCY              records of a batch at once (default 100)
//	AWS_LAMBDA_MAX_CONCURRENCY     set by Lambda on a capacity provider (Managed Instances): the invocations run at once in this process (default 1)
//	IDEMQ_BACKOFF                  give in-progress messages back at their lease's end (default true; needs sqs:ChangeMessageVisibility); "false" turns it off
//	IDEMQ_SQS_ENDPOINT             SQS endpoint for the back-off and the consumer, for a local SQS server (optional; not with IDEMQ_BACKOFF=false outside consumer mode)
//	IDEMQ_QUEUE_URL                queue URL for the back-off (default: derived from the event source ARN, or the consumer's queue; not with IDEMQ_BACKOFF=false)
//	IDEMQ_DYNAMODB_ENDPOINT        DynamoDB endpoint, for DynamoDB Local (optional)
//	IDEMQ_STORE                    dynamodb (default), postgres, redis, or memory (local runs: records live as long as the process)
//	IDEMQ_STORE_URL                the postgres:// or redis:// URL of those stores (required with them)
//	IDEMQ_NAMESPACE                key namespace (default: the function's name, with a warning at start-up)
//	IDEMQ_EMF_NAMESPACE            CloudWatch namespace for per-batch EMF metrics (default: off)
//	IDEMQ_COMPRESS_ABOVE           size in bytes above which results are stored gzipped (default 512), or "off" (a rolling upgrade from a version without compression, or a table Powertools also reads)
//	IDEMQ_BLOB_BUCKET              S3 bucket for results above IDEMQ_OFFLOAD_ABOVE (default: none, every result stays in its record; needs s3:PutObject and s3:GetObject on the prefix)
//	IDEMQ_BLOB_PREFIX              object key prefix in the bucket (default idemq/; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_OFFLOAD_ABOVE            stored size in bytes (after compression) above which a result goes to the bucket (default 6000; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_S3_ENDPOINT              S3 endpoint, path-style, for a local S3 server (optional; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_QUEUE                    the queue's settings as JSON (queue.Settings), to check the expiry and lease against (default: unchecked)
//	IDEMQ_TRACING                  otel: OpenTelemetry spans over OTLP/HTTP to the ADOT layer's collector (localhost:4318, or OTEL_EXPORTER_OTLP_ENDPOINT); xray: the same, each batch under the invocation's X-Ray trace (needs active tracing); default off (docs/tracing.md)
//
// Every pool is sized for the requests that can be under way at once,
// AWS_LAMBDA_MAX_CONCURRENCY × IDEMQ_CONCURRENCY: the idle connections of
// the DynamoDB, provider, SQS and S3 clients, the PostgreSQL pool's
// MaxConns (unless the URL sets pool_max_conns) and the Redis pool's size
// (or the URL's pool_size, when larger); in consumer mode,
// IDEMQ_CONSUMER_MAX_BATCHES × min(IDEMQ_CONCURRENCY, 10). See
// docs/worker.md.
//
// Set IDEMQ_MODE=frontdoor and the function serves the HTTP front door
// (package frontdoor) behind a Lambda function URL or an API Gateway HTTP
// API: it enqueues each request posted with an Idempotency-Key once, and
// answers its status from the worker's records (docs/frontdoor.md;
// lambda/frontdoor.go lists its variables).
//
//	IDEMQ_MODE                     worker (default) or frontdoor
//	IDEMQ_FRONTDOOR_QUEUE_URL      the worker's queue, to send requests to (required in front-door mode, with IDEMQ_NAMESPACE)
//	IDEMQ_FRONTDOOR_PATH           where requests are posted (default /requests; each status at /requests/{key})
//	IDEMQ_FRONTDOOR_MAX_BODY_BYTES largest request body read (default 1048576; a body whose message is over the queue's size is refused too)
//	IDEMQ_FRONTDOOR_ADDR           host:port: serve plain HTTP there instead of Lambda, until SIGTERM or SIGINT (local runs, containers; default: Lambda)
//	IDEMQ_FRONTDOOR_SCOPE          iam: each IAM caller's keys are its own, a request without one is 403 (default on Lambda); none: one key space shared by every caller (default with IDEMQ_FRONTDOOR_ADDR)
//
// Set IDEMQ_CONSUMER_QUEUE_URL and the same binary runs off Lambda, as a
// long-running consumer of that queue (package consumer) with the same
// store, options and code, until SIGTERM or SIGINT:
//
//	IDEMQ_CONSUMER_QUEUE_URL       the queue to receive from; unset: run as a Lambda function (IDEMQ_SQS_ENDPOINT applies to it; the back-off uses it)
//	IDEMQ_CONSUMER_MAX_RUN_TIME    each batch's deadline, a Go duration, as a function's timeout (default consumer.DefaultMaxRunTime, 15m)
//	IDEMQ_CONSUMER_MAX_BATCHES     batches at once, up to 10 messages each (default consumer.DefaultMaxBatches, 4)
//	IDEMQ_CONSUMER_GRACE_PERIOD    after SIGTERM, how long running work may finish before it is cancelled (default consumer.DefaultGracePeriod, 20s)
//	IDEMQ_CONSUMER_VISIBILITY      visibility timeout of each receive and extension, whole seconds (default: the queue's)
//	IDEMQ_HEALTH_ADDR              host:port serving GET /healthz, 200 while the consumer receives (default: none)
//
// Set IDEMQ_MODE=dispatch and the same binary, in either mode, is a
// dispatcher to a Lambda durable function instead (package durable; see
// docs/dispatcher.md): it keeps no records and calls no provider, but
// starts one durable execution per key, named after it, and acknowledges
// a message only when Lambda accepted its start or holds its execution. It
// reads IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD and IDEMQ_KEY_FIELDS (each
// execution is named after the record key the worker's handler claims),
// IDEMQ_CONCURRENCY, the consumer's variables and:
//
//	IDEMQ_MODE                     dispatch; unset: the worker above
//	IDEMQ_DURABLE_FUNCTION         the durable function's name or ARN with its version or alias, like summarise:prod (required; needs lambda:InvokeFunction on it)
//	IDEMQ_LAMBDA_ENDPOINT          Lambda endpoint, for a local fake (optional)
//
// The worker's store, provider and back-off variables are refused in it.
//
// The worker only maps these onto handler and idem options: their defaults
// and their checks are the library's. A setting the library refuses stops
// the function at start-up with the library's message, after the name of
// the variable that set it.
//
// With the postgres store the worker only checks, at start-up, that
// IDEMQ_TABLE exists with the store's shape (pgstore.Store.Check, a read of
// the catalog), and stops if not. Creating it is a migration step, run
// once with DDL rights before the workers start:
//
//	IDEMQ_STORE=postgres IDEMQ_STORE_URL=postgres://... IDEMQ_TABLE=idempotency go run ./lambda -migrate
//
// (or make migrate-postgres, or the built bootstrap with -migrate) creates
// the table and its index if missing (pgstore.CreateTable), reports what
// differs in a table of another shape, and exits. It reads only those
// three variables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/internal/storeenv"
	"github.com/idemq/idemq/queue"
)

func main() {
	migrateOnly := flag.Bool("migrate", false, "create the PostgreSQL table of records (IDEMQ_STORE=postgres, IDEMQ_STORE_URL, IDEMQ_TABLE) if it is missing, check its shape, and exit")
	flag.Parse()
	if *migrateOnly {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := migrate(ctx, os.Getenv, os.Stdout)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "idemq worker -migrate: %v\n", err)
			os.Exit(1)
		}
		return
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	p, err := start(context.Background(), os.Getenv, logger)
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
		os.Exit(1)
	}
	if p.frontDoor != nil {
		if err := serveFrontDoor(p.frontDoor, p.frontDoorAddr); err != nil {
			fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if p.consumer == nil {
		lambda.Start(p.handler)
		return
	}
	if err := runConsumer(p.consumer, p.healthAddr, logger); err != nil {
		fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
		os.Exit(1)
	}
}

// program is what start wires: the handler, and in consumer mode the
// consumer that runs it.
type program struct {
	handler    handler.Handler
	consumer   *consumer.Consumer // nil: Lambda mode
	healthAddr string
	// frontDoor is front-door mode's handler (lambda/frontdoor.go),
	// served instead of handler, on frontDoorAddr if set.
	frontDoor     http.Handler
	frontDoorAddr string
}

// startup reads the configuration through getenv and wires the handler.
// Its error never holds the store's password: values that may hold one are
// shown redacted or not at all, and what the store's client says is
// stripped of them.
func startup(ctx context.Context, getenv func(string) string, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (handler.Handler, error) {
	p, err := start(ctx, getenv, logger, awsOpts...)
	return p.handler, err
}

// start is startup with consumer mode: the program to run.
func start(ctx context.Context, getenv func(string) string, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return program{}, fmt.Errorf("bad configuration:\n%w", err)
	}
	p, err := wire(ctx, cfg, logger, awsOpts...)
	if err != nil {
		return program{}, storeenv.Redact(err, cfg.storeURL)
	}
	return p, nil
}

// newHandler wires the store, the provider and the handler options from
// the configuration, reading the provider's API key from Secrets Manager if
// a secret is named. awsOpts are added to the AWS SDK's default
// configuration (tests point it at fake servers).
func newHandler(ctx context.Context, cfg config, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (handler.Handler, error) {
	p, err := wire(ctx, cfg, logger, awsOpts...)
	return p.handler, err
}

// wire is newHandler with consumer mode: with a consumer queue URL it
// also wires the consumer, through the SQS client the back-off uses.
// The library refuses a setting that cannot be safe with an
// *idem.ConfigError naming it; settingError names the variable that set it.
func wire(ctx context.Context, cfg config, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	if cfg.dispatch.function != "" {
		return wireDispatch(ctx, cfg, logger, awsOpts...) // lambda/dispatch.go
	}
	if cfg.namespace == "" && lambdacontext.FunctionName == "" {
		return program{}, fmt.Errorf("%s is required outside Lambda (AWS_LAMBDA_FUNCTION_NAME is unset)", envNamespace)
	}
	warnings(cfg, logger)
	opts := []handler.Option{handler.WithLogger(logger), handler.WithRequest(cfg.identity())}
	conns := cfg.connections() // connections to keep: one per record at once, in every invocation at once
	if cfg.concurrency != 0 {
		opts = append(opts, handler.WithConcurrency(cfg.concurrency))
	}
	var awsCfg aws.Config
	consuming := cfg.consumer.queueURL != ""
	if cfg.store == "dynamodb" || cfg.backoff || consuming || cfg.apiKeySecret != "" || cfg.blobBucket != "" || cfg.frontDoor.on {
		var err error
		if awsCfg, err = awsconfig.LoadDefaultConfig(ctx, awsOpts...); err != nil {
			return program{}, fmt.Errorf("AWS configuration: %w", err)
		}
	}
	apiKey := cfg.apiKey
	if cfg.apiKeySecret != "" && !cfg.frontDoor.on {
		var err error
		if apiKey, err = readAPIKey(ctx, secretsmanager.NewFromConfig(awsCfg), cfg.apiKeySecret); err != nil {
			return program{}, err
		}
	}
	if cfg.store == storeenv.Memory {
		logger.Warn("idemq worker: records are kept in memory; they last as long as this process", "store", cfg.store)
	}
	store, closeStore, err := storeenv.Open(ctx, cfg.storeSettings(), storeenv.WithConnections(conns),
		storeenv.WithAWS(func(context.Context) (aws.Config, error) { return awsCfg, nil }))
	if err != nil {
		return program{}, settingError(err)
	}
	if pg, ok := store.(*pgstore.Store); ok {
		// Only a look at the catalog: creating the table needs DDL rights
		// and takes locks, which is a migration's business, not every
		// cold start's.
		if err := pg.Check(ctx); err != nil {
			closeStore()
			err = fmt.Errorf("%s=%s on %s: %w", envTable, cfg.table, envStoreURL, err)
			if errors.Is(err, pgstore.ErrTableShape) {
				err = fmt.Errorf("%w; %s", err, migrateHint)
			}
			return program{}, err
		}
	}

	opts = append(opts, handler.WithIdem(idem.WithExpiry(cfg.expiry), idem.WithLease(cfg.lease), idem.WithHeartbeat(cfg.heartbeat),
		idem.WithCompressAbove(cfg.compressAbove)))
	var blobs idem.Blobs // nil: none
	if cfg.blobBucket != "" {
		client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
			// Every record of a batch may put or get its result at once.
			o.HTTPClient = keepConnections(o.HTTPClient, conns)
			if cfg.s3Endpoint != "" {
				o.BaseEndpoint = aws.String(cfg.s3Endpoint)
				o.UsePathStyle = true // a local server has no per-bucket host names
			}
		})
		s3b, err := s3blob.New(client, cfg.blobBucket, cfg.blobPrefix)
		if err != nil {
			return program{}, settingError(err)
		}
		blobs = s3b
		opts = append(opts, handler.WithIdem(idem.WithBlobs(blobs), idem.WithOffloadAbove(cfg.offloadAbove)))
	}
	if cfg.frontDoor.on {
		fd, err := newFrontDoor(cfg, awsCfg, store, blobs, conns, logger)
		if err != nil {
			return program{}, settingError(err)
		}
		return program{frontDoor: fd, frontDoorAddr: cfg.frontDoor.addr}, nil
	}
	var sqsClient *sqs.Client
	if cfg.backoff || consuming {
		sqsClient = sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
			// Every in-progress record of a batch may give its message
			// back at once: keep a connection for each.
			o.HTTPClient = keepConnections(o.HTTPClient, conns)
			if cfg.sqsEndpoint != "" {
				o.BaseEndpoint = aws.String(cfg.sqsEndpoint)
			}
		})
	}
	if cfg.backoff {
		switch {
		case consuming:
			// A message given back is no longer kept hidden by the
			// consumer's extensions (consumer.Backoff).
			opts = append(opts, handler.WithBackoff(consumer.Backoff(sqsClient)), handler.WithQueueURL(cfg.consumer.queueURL))
		case cfg.queueURL != "":
			opts = append(opts, handler.WithBackoff(sqsClient), handler.WithQueueURL(cfg.queueURL))
		default:
			opts = append(opts, handler.WithBackoff(sqsClient))
		}
	}
	if cfg.emfNamespace != "" {
		opts = append(opts, handler.WithEMF(os.Stdout, cfg.emfNamespace))
	}
	var tr *tracing
	if cfg.tracing != "" {
		if tr, err = newTracing(os.Getenv); err != nil {
			return program{}, err
		}
		opts = append(opts, tr.option(cfg.tracing))
	}
	w := &worker{provider: newProvider(cfg.providerURL, apiKey, conns)}
	var p program
	if p.handler, err = handler.New(store, w.handle, opts...); err != nil {
		return program{}, settingError(err)
	}
	if tr != nil {
		p.handler = tr.flushing(p.handler)
	}
	if consuming {
		if p.consumer, err = newConsumer(cfg, sqsClient, p.handler, logger); err != nil {
			return program{}, settingError(err)
		}
		p.healthAddr = cfg.consumer.healthAddr
	}
	return p, nil
}

// warnings logs, once at start-up, the settings that work but may cost a
// second execution: a namespace left to the function's name, which a new
// function (a replaced or renamed one) does not keep; a record expiry that
// covers the queue but not a redrive from its dead-letter queue.
func warnings(cfg config, logger *slog.Logger) {
	if cfg.namespace == "" {
		logger.Warn("idemq worker: "+envNamespace+" is unset: every key is prefixed with the function's name, and a function replaced or renamed "+
			"finds none of its records, so every redelivered request runs again; set "+envNamespace+" once and keep it",
			"function", lambdacontext.FunctionName)
	}
	if cfg.queue.Retention == 0 {
		return
	}
	if err := queue.CheckExpiry(cfg.queue, cfg.effectiveExpiry()); err != nil {
		logger.Warn("idemq worker: "+envRecordExpiry+" does not cover a redrive from the dead-letter queue: a message redriven late may run its work again",
			"err", err.Error())
	}
}
