package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/sdkhttp"
)

// wireDispatch wires dispatch mode (IDEMQ_MODE=dispatch): the worker
// starts one Lambda durable execution per key (package durable) instead
// of claiming keys in a store and calling a provider, and in consumer
// mode the consumer that runs it. durable.New's error names a setting it
// refuses, after the variable that set it.
func wireDispatch(ctx context.Context, s idemqenv.Settings, logger *slog.Logger, awsOpts ...func(*awsconfig.LoadOptions) error) (program, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsOpts...)
	if err != nil {
		return program{}, fmt.Errorf("AWS configuration: %w", err)
	}
	conns := max(s.Concurrency, durable.DefaultConcurrency) * max(s.MaxConcurrency, 1)
	client := lambda.NewFromConfig(awsCfg, func(o *lambda.Options) {
		o.HTTPClient = sdkhttp.KeepConnections(o.HTTPClient, conns)
		if s.Dispatch.LambdaEndpoint != "" {
			o.BaseEndpoint = aws.String(s.Dispatch.LambdaEndpoint)
		}
	})
	opts := []durable.Option{durable.WithLogger(logger), durable.WithRequest(s.Request)}
	if s.Concurrency != 0 {
		opts = append(opts, durable.WithConcurrency(s.Concurrency))
	}
	d, err := durable.New(client, s.Dispatch.Function, opts...)
	if err != nil {
		return program{}, idemqenv.SettingError(err)
	}
	p := program{handler: d.Handle}
	if s.Consumer.QueueURL != "" {
		sqsClient := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
			if s.SQSEndpoint != "" {
				o.BaseEndpoint = aws.String(s.SQSEndpoint)
			}
		})
		if p.consumer, err = newConsumer(s, sqsClient, p.handler, logger); err != nil {
			return program{}, idemqenv.SettingError(err)
		}
		p.healthAddr = s.Consumer.HealthAddr
	}
	return p, nil
}
