package worker

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
)

// clients are a program's AWS clients: each made here, once, when first
// needed, from one AWS configuration (Config.AWS, loaded once) and the
// settings' endpoints, keeping a connection for each request that can be
// under way at once (connections). DynamoDB's is the DynamoDB store's
// opener's (dynamoenv), given the same configuration and connections.
// The wiring is sequential: clients are not safe for concurrent use.
type clients struct {
	s     idemqenv.Settings
	conns int
	aws   func(context.Context) (aws.Config, error)

	sqs    *sqs.Client
	s3     *s3.Client
	lambda *lambda.Client
}

func newClients(s idemqenv.Settings, load func(context.Context) (aws.Config, error)) *clients {
	return &clients{s: s, conns: connections(s), aws: onceAWS(load)}
}

// SQS is the client of the back-off, the consumer and the front door's
// producer, at IDEMQ_SQS_ENDPOINT when set.
func (c *clients) SQS(ctx context.Context) (*sqs.Client, error) {
	if c.sqs != nil {
		return c.sqs, nil
	}
	cfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	c.sqs = sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		o.HTTPClient = stores.KeepConnections(o.HTTPClient, c.conns)
		if c.s.SQSEndpoint != "" {
			o.BaseEndpoint = aws.String(c.s.SQSEndpoint)
		}
	})
	return c.sqs, nil
}

// S3 is the client of the bucket of large results, path-style at
// IDEMQ_S3_ENDPOINT when set (a local server has no per-bucket host
// names): every record of a batch may put or get its result at once.
func (c *clients) S3(ctx context.Context) (*s3.Client, error) {
	if c.s3 != nil {
		return c.s3, nil
	}
	cfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	c.s3 = s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.HTTPClient = stores.KeepConnections(o.HTTPClient, c.conns)
		if c.s.Blobs.S3Endpoint != "" {
			o.BaseEndpoint = aws.String(c.s.Blobs.S3Endpoint)
			o.UsePathStyle = true
		}
	})
	return c.s3, nil
}

// Lambda is the client of the dispatcher's starts and of the worker's
// look at its event source mappings, at IDEMQ_LAMBDA_ENDPOINT when set.
func (c *clients) Lambda(ctx context.Context) (*lambda.Client, error) {
	if c.lambda != nil {
		return c.lambda, nil
	}
	cfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	c.lambda = lambda.NewFromConfig(cfg, func(o *lambda.Options) {
		o.HTTPClient = stores.KeepConnections(o.HTTPClient, c.conns)
		if c.s.Dispatch.LambdaEndpoint != "" {
			o.BaseEndpoint = aws.String(c.s.Dispatch.LambdaEndpoint)
		}
	})
	return c.lambda, nil
}

// onceAWS calls load at most once, when a client first needs it.
func onceAWS(load func(context.Context) (aws.Config, error)) func(context.Context) (aws.Config, error) {
	var (
		once sync.Once
		cfg  aws.Config
		err  error
	)
	return func(ctx context.Context) (aws.Config, error) {
		once.Do(func() { cfg, err = load(ctx) })
		return cfg, err
	}
}
