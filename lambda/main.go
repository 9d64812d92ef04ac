// Command lambda is idemq's reference worker: an SQS-triggered Lambda
// function (provided.al2023, built as bootstrap with -tags lambda.norpc)
// that sends each message's model request to an OpenAI-compatible provider
// once per idempotency key, and stores the completion as the key's result.
//
// Configuration is read from the environment at start-up; a bad or missing
// variable stops the function with a message naming it (a URL in it shown
// with its password hidden, or not at all):
//
//	IDEMQ_TABLE                    table of idempotency records (required with the dynamodb and postgres stores; on postgres its shape is checked, see -migrate); key prefix on redis
//	IDEMQ_RECORD_EXPIRY            how long records live, a Go duration, at least 60s (default idem.DefaultExpiry; size it with handler.RecordLifetime, the dead-letter queue included)
//	IDEMQ_KEY_FIELD                JSON body field holding the key (default idempotency_key)
//	IDEMQ_LEASE                    claim lease, a Go duration (default: the records' time left plus 10s, the invocation's plus 7.5s)
//	IDEMQ_PROVIDER_URL             OpenAI-compatible base URL, with or without /v1 (required)
//	IDEMQ_PROVIDER_API_KEY         bearer token for the provider (optional; for local runs)
//	IDEMQ_PROVIDER_API_KEY_SECRET  Secrets Manager secret (name or ARN) whose SecretString is the bearer token, read once at start-up (optional; not with IDEMQ_PROVIDER_API_KEY)
//	IDEMQ_HEARTBEAT                extend a running record's lease this often, a Go duration at most half of IDEMQ_LEASE, which it needs (default off)
//	IDEMQ_CONCURRENCY              records of a batch at once (default 100)
//	AWS_LAMBDA_MAX_CONCURRENCY     set by Lambda on a capacity provider (Managed Instances): the invocations run at once in this process (default 1)
//	IDEMQ_BACKOFF                  give in-progress messages back at their lease's end (default true; needs sqs:ChangeMessageVisibility); "false" turns it off
//	IDEMQ_SQS_ENDPOINT             SQS endpoint for the back-off, for a local SQS server (optional; not with IDEMQ_BACKOFF=false)
//	IDEMQ_QUEUE_URL                queue URL for the back-off (default: derived from the event source ARN; not with IDEMQ_BACKOFF=false)
//	IDEMQ_DYNAMODB_ENDPOINT        DynamoDB endpoint, for DynamoDB Local (optional)
//	IDEMQ_STORE                    dynamodb (default), postgres, redis, or memory (local runs: records live as long as the process)
//	IDEMQ_STORE_URL                the postgres:// or redis:// URL of those stores (required with them)
//	IDEMQ_NAMESPACE                key namespace (default: the function's name, with a warning at start-up)
//	IDEMQ_EMF_NAMESPACE            CloudWatch namespace for per-batch EMF metrics (default: off)
//	IDEMQ_COMPRESS_ABOVE           size in bytes above which results are stored gzipped (default 512), or "off" (a rolling upgrade from a version without compression, or a table Powertools also reads)
//	IDEMQ_BLOB_BUCKET              S3 bucket for results above IDEMQ_OFFLOAD_ABOVE (default: none, every result stays in its record; needs s3:PutObject and s3:GetObject on the prefix)
//	IDEMQ_BLOB_PREFIX              object key prefix in the bucket (default idemq/; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_OFFLOAD_ABOVE            stored size in bytes (after compression) above which a result goes to the bucket (default 8192; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_S3_ENDPOINT              S3 endpoint, path-style, for a local S3 server (optional; only with IDEMQ_BLOB_BUCKET)
//	IDEMQ_QUEUE                    the queue's settings as JSON (handler.QueueSettings), to check the expiry and lease against (default: unchecked)
//
// Every pool is sized for the requests that can be under way at once,
// AWS_LAMBDA_MAX_CONCURRENCY × IDEMQ_CONCURRENCY: the idle connections of
// the DynamoDB, provider, SQS and S3 clients, the PostgreSQL pool's
// MaxConns (unless the URL sets pool_max_conns) and the Redis pool's size
// (or the URL's pool_size, when larger). See docs/worker.md.
//
// The worker only maps these onto handler and idem options: their defaults
// and their checks are the library's. A setting the library refuses stops
// the function at start-up with the library's message.
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
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/s3blob"
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
	h, err := startup(context.Background(), os.Getenv, logger)
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemq worker: %v\n", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// startup reads the configuration through getenv and wires the handler.
// Its error never holds the store's password: values that may hold one are
// shown redacted or not at all, and what the store's client says is
// stripped of them.
func startup(ctx context.Context, getenv func(string) string, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (handler.Handler, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, fmt.Errorf("bad configuration:\n%w", err)
	}
	h, err := newHandler(ctx, cfg, logger, awsOpts...)
	if err != nil {
		return nil, redacted{err: err, msg: hideSecrets(err.Error(), cfg.storeURL)}
	}
	return h, nil
}

// newHandler wires the store, the provider and the handler options from
// the configuration, reading the provider's API key from Secrets Manager if
// a secret is named. awsOpts are added to the AWS SDK's default
// configuration (tests point it at fake servers).
func newHandler(ctx context.Context, cfg config, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (h handler.Handler, err error) {
	if cfg.namespace == "" && lambdacontext.FunctionName == "" {
		return nil, fmt.Errorf("%s is required outside Lambda (AWS_LAMBDA_FUNCTION_NAME is unset)", envNamespace)
	}
	// The library refuses unsafe settings by panicking as it is wired:
	// report that as a configuration error.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bad configuration: %v", p)
			if strings.HasPrefix(fmt.Sprint(p), "idem: ") {
				err = fmt.Errorf("%w (%s, %s and %s set idem's Expiry, Lease and Heartbeat)", err, envRecordExpiry, envLease, envHeartbeat)
			}
			h = nil
		}
	}()
	warnings(cfg, logger)
	opts := []handler.Option{handler.WithLogger(logger)}
	if cfg.keyField != "" {
		opts = append(opts, handler.WithKeyField(cfg.keyField))
	}
	conns := cfg.connections() // connections to keep: one per record at once, in every invocation at once
	if cfg.concurrency != 0 {
		opts = append(opts, handler.WithConcurrency(cfg.concurrency))
	}
	var awsCfg aws.Config
	if cfg.store == "dynamodb" || cfg.backoff || cfg.apiKeySecret != "" || cfg.blobBucket != "" {
		var err error
		if awsCfg, err = awsconfig.LoadDefaultConfig(ctx, awsOpts...); err != nil {
			return nil, fmt.Errorf("AWS configuration: %w", err)
		}
	}
	apiKey := cfg.apiKey
	if cfg.apiKeySecret != "" {
		var err error
		if apiKey, err = readAPIKey(ctx, secretsmanager.NewFromConfig(awsCfg), cfg.apiKeySecret); err != nil {
			return nil, err
		}
	}
	var store idem.Store
	switch cfg.store {
	case "postgres":
		pc, err := pgPoolConfig(cfg.storeURL, conns)
		if err != nil {
			return nil, storeURLError(cfg.storeURL, err)
		}
		pool, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return nil, storeURLError(cfg.storeURL, err)
		}
		pg := pgstore.New(pool, cfg.table)
		// Only a look at the catalog: creating the table needs DDL rights
		// and takes locks, which is a migration's business, not every
		// cold start's.
		if err := pg.Check(ctx); err != nil {
			pool.Close()
			err = fmt.Errorf("%s=%s on %s: %w", envTable, cfg.table, envStoreURL, err)
			if errors.Is(err, pgstore.ErrTableShape) {
				err = fmt.Errorf("%w; %s", err, migrateHint)
			}
			return nil, err
		}
		store = pg
	case "redis":
		opts, err := redis.ParseURL(cfg.storeURL)
		if err != nil {
			return nil, storeURLError(cfg.storeURL, err)
		}
		opts.PoolSize = max(opts.PoolSize, conns)
		var ropts []redisstore.Option
		if cfg.table != "" {
			ropts = append(ropts, redisstore.WithPrefix(cfg.table+":"))
		}
		store = redisstore.New(redis.NewClient(opts), ropts...)
	case "memory":
		logger.Warn("idemq worker: records are kept in memory; they last as long as this process", "store", cfg.store)
		store = memstore.New()
	default:
		client := dynamodb.NewFromConfig(awsCfg, dynamostore.KeepConnections(conns), func(o *dynamodb.Options) {
			if cfg.endpoint != "" {
				o.BaseEndpoint = aws.String(cfg.endpoint)
			}
		})
		store = dynamostore.New(client, cfg.table)
	}

	if cfg.namespace != "" {
		opts = append(opts, handler.WithNamespace(cfg.namespace))
	}
	opts = append(opts, handler.WithIdem(idem.WithExpiry(cfg.expiry), idem.WithLease(cfg.lease), idem.WithHeartbeat(cfg.heartbeat),
		idem.WithCompressAbove(cfg.compressAbove)))
	if cfg.blobBucket != "" {
		client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
			// Every record of a batch may put or get its result at once.
			o.HTTPClient = keepConnections(o.HTTPClient, conns)
			if cfg.s3Endpoint != "" {
				o.BaseEndpoint = aws.String(cfg.s3Endpoint)
				o.UsePathStyle = true // a local server has no per-bucket host names
			}
		})
		opts = append(opts, handler.WithIdem(idem.WithBlobs(s3blob.New(client, cfg.blobBucket, cfg.blobPrefix)), idem.WithOffloadAbove(cfg.offloadAbove)))
	}
	if cfg.backoff {
		opts = append(opts, handler.WithBackoff(sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
			// Every in-progress record of a batch may give its message
			// back at once: keep a connection for each.
			o.HTTPClient = keepConnections(o.HTTPClient, conns)
			if cfg.sqsEndpoint != "" {
				o.BaseEndpoint = aws.String(cfg.sqsEndpoint)
			}
		})))
		if cfg.queueURL != "" {
			opts = append(opts, handler.WithQueueURL(cfg.queueURL))
		}
	}
	if cfg.emfNamespace != "" {
		opts = append(opts, handler.WithEMF(os.Stdout, cfg.emfNamespace))
	}
	w := &worker{provider: newProvider(cfg.providerURL, apiKey, conns)}
	return handler.WrapSQS(store, w.handle, opts...), nil
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
	if err := handler.CheckExpiry(cfg.queue, cfg.effectiveExpiry()); err != nil {
		logger.Warn("idemq worker: "+envRecordExpiry+" does not cover a redrive from the dead-letter queue: a message redriven late may run its work again",
			"err", err.Error())
	}
}
