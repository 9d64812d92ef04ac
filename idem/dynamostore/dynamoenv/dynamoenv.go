package dynamoenv

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/stores"
)

// Opener opens the DynamoDB store (IDEMQ_STORE=dynamodb, the default):
// a client of Config.AWS's configuration, keeping
// Config.Connections idle connections, at IDEMQ_DYNAMODB_ENDPOINT when
// set, and dynamostore.New over IDEMQ_TABLE (WithMultiRegionStrong with
// IDEMQ_DYNAMODB_MULTI_REGION_STRONG). It makes no request.
func Opener() stores.Opener {
	return stores.Opener{Kind: stores.DynamoDB, Open: open}
}

func open(ctx context.Context, s stores.Settings, c stores.Config) (stores.Records, func(), error) {
	if c.AWS == nil {
		return nil, nil, errors.New("dynamoenv: Config.AWS is nil: the DynamoDB client needs an AWS configuration")
	}
	cfg, err := c.AWS(ctx)
	if err != nil {
		return nil, nil, err
	}
	client := dynamodb.NewFromConfig(cfg, dynamostore.KeepConnections(c.Connections), func(o *dynamodb.Options) {
		if s.DynamoDBEndpoint != "" {
			o.BaseEndpoint = aws.String(s.DynamoDBEndpoint)
		}
	})
	var opts []dynamostore.Option
	if s.DynamoDBStrong {
		opts = append(opts, dynamostore.WithMultiRegionStrong())
	}
	st, err := dynamostore.New(client, s.Table, opts...)
	if err != nil {
		return nil, nil, err
	}
	return st, func() {}, nil
}
