package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/internal/storeenv"
)

// The variables of dispatch mode (IDEMQ_MODE=dispatch): the worker starts
// one Lambda durable execution per key (package durable) instead of
// claiming keys in a store and calling a provider.
const (
	modeDispatch       = "dispatch"
	envDurableFunction = "IDEMQ_DURABLE_FUNCTION"    // the durable function's name or ARN with its version or alias; required in dispatch mode
	envDurablePrefix   = "IDEMQ_DURABLE_NAME_PREFIX" // no longer read: refused, naming what replaced it (executions are named after the record key, IDEMQ_NAMESPACE's)
	envLambdaEndpoint  = "IDEMQ_LAMBDA_ENDPOINT"     // Lambda endpoint URL, for a local fake; default AWS's
)

// dispatchConfig is dispatch mode's part of the configuration; function
// is "" outside it.
type dispatchConfig struct {
	function string
	endpoint string
}

// notInDispatch are the worker's variables that mean nothing in dispatch
// mode, which has no store, no provider and nothing in progress to back
// off from: any of them set is a mistake, not a setting.
var notInDispatch = []string{
	envStore, envStoreURL, envTable, envEndpoint, envRecordExpiry, envLease, envHeartbeat, envBackoff, envQueueURL,
	envProviderURL, envAPIKey, envAPIKeySecret, envEMF, envCompress, envQueue,
	envBlobBucket, envBlobPrefix, envOffloadAbove, envS3Endpoint,
}

// loadDispatch reads dispatch mode's configuration, reporting every bad
// variable at once. The key (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD,
// IDEMQ_KEY_FIELDS), the batch's concurrency and consumer mode are read
// as in the worker's other mode.
func loadDispatch(getenv func(string) string) (config, error) {
	c := config{keyField: getenv(envKeyField), namespace: getenv(envNamespace), sqsEndpoint: getenv(envSQSEndpoint), dispatch: dispatchConfig{
		function: getenv(envDurableFunction), endpoint: getenv(envLambdaEndpoint)}}
	if n := maxConcurrency(getenv); n > 1 {
		c.invocations = n
	}
	errs := checkKeyFields(&c, getenv)
	errs = append(errs, checkConsumer(&c, getenv)...)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, name := range notInDispatch {
		if getenv(name) != "" {
			bad("%s is set but %s is %s: dispatch mode keeps no records and calls no provider; the durable function does the work", name, envMode, modeDispatch)
		}
	}
	if getenv(envDurablePrefix) != "" {
		bad("%s is no longer read: each execution is named after the record key the worker's handler claims, in %s (default the function's name); "+
			"remove it, and set %s to the handler's namespace (docs/dispatcher.md)", envDurablePrefix, envNamespace, envNamespace)
	}
	if c.dispatch.function == "" {
		bad("%s is required with %s=%s: the durable function's name or ARN with its version or alias, like summarise:prod", envDurableFunction, envMode, modeDispatch)
	}
	if v := getenv(envConcurrency); v != "" {
		var err error
		if c.concurrency, err = strconv.Atoi(v); err != nil || c.concurrency < 1 {
			bad("%s=%q: want a whole number of at least 1", envConcurrency, v)
		}
	}
	for _, v := range []struct{ name, value string }{{envLambdaEndpoint, c.dispatch.endpoint}, {envSQSEndpoint, c.sqsEndpoint}} {
		if v.value == "" {
			continue
		}
		if v.name == envSQSEndpoint && c.consumer.queueURL == "" {
			bad("%s is set but %s is not: in dispatch mode only the consumer talks to SQS", envSQSEndpoint, envConsumerQueueURL)
			continue
		}
		if err := checkURL(v.value); err != nil {
			bad("%s: %v", storeenv.ShowVar(v.name, v.value), err)
		}
	}
	return c, errors.Join(errs...)
}

// wireDispatch wires dispatch mode: the dispatcher, and in consumer mode
// the consumer that runs it. durable.New's error names a setting it
// refuses, after the variable that set it.
func wireDispatch(ctx context.Context, cfg config, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsOpts...)
	if err != nil {
		return program{}, fmt.Errorf("AWS configuration: %w", err)
	}
	conns := max(cfg.concurrency, durable.DefaultConcurrency) * max(cfg.invocations, 1)
	client := lambda.NewFromConfig(awsCfg, func(o *lambda.Options) {
		o.HTTPClient = keepConnections(o.HTTPClient, conns)
		if cfg.dispatch.endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.dispatch.endpoint)
		}
	})
	opts := []durable.Option{durable.WithLogger(logger), durable.WithRequest(cfg.identity())}
	if cfg.concurrency != 0 {
		opts = append(opts, durable.WithConcurrency(cfg.concurrency))
	}
	d, err := durable.New(client, cfg.dispatch.function, opts...)
	if err != nil {
		return program{}, settingError(err)
	}
	p := program{handler: d.Handle}
	if cfg.consumer.queueURL != "" {
		sqsClient := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
			if cfg.sqsEndpoint != "" {
				o.BaseEndpoint = aws.String(cfg.sqsEndpoint)
			}
		})
		if p.consumer, err = newConsumer(cfg, sqsClient, p.handler, logger); err != nil {
			return program{}, settingError(err)
		}
		p.healthAddr = cfg.consumer.healthAddr
	}
	return p, nil
}
