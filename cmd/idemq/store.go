package main

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/redisstore"
)

// openStore connects to the store the settings name, through each
// store's New (its defaults are the store's), and returns it with the
// function that closes its connections.
func openStore(ctx context.Context, s *settings, getenv func(string) string) (idem.Admin, func(), error) {
	switch s.storeName() {
	case "dynamodb":
		if s.table == "" {
			return nil, nil, fmt.Errorf("%s (or --table) is required: the DynamoDB table of records", envTable)
		}
		cfg, err := awsConfig(ctx, getenv)
		if err != nil {
			return nil, nil, err
		}
		client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			if s.endpoint != "" {
				o.BaseEndpoint = aws.String(s.endpoint)
			}
		})
		st, err := dynamostore.New(client, s.table)
		return st, func() {}, err
	case "postgres":
		if s.table == "" || s.storeURL == "" {
			return nil, nil, fmt.Errorf("%s and %s (or --table and --store-url) are required with the postgres store", envTable, envStoreURL)
		}
		pool, err := pgxpool.New(ctx, s.storeURL)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a postgres:// URL that pgx reads", envStoreURL)
		}
		st, err := pgstore.New(pool, s.table)
		if err != nil {
			pool.Close()
			return nil, nil, err
		}
		return st, pool.Close, nil
	case "redis":
		if s.storeURL == "" {
			return nil, nil, fmt.Errorf("%s (or --store-url) is required with the redis store", envStoreURL)
		}
		opts, err := redis.ParseURL(s.storeURL)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a redis:// URL", envStoreURL)
		}
		client := redis.NewClient(opts)
		var ropts []redisstore.Option
		if s.table != "" { // the worker's key prefix (lambda/main.go)
			ropts = append(ropts, redisstore.WithPrefix(s.table+":"))
		}
		st, err := redisstore.New(client, ropts...)
		if err != nil {
			_ = client.Close()
			return nil, nil, err
		}
		return st, func() { _ = client.Close() }, nil
	case "memory":
		return nil, nil, fmt.Errorf("%s=memory keeps records in the worker's process: there is nothing to inspect from outside", envStore)
	default:
		return nil, nil, fmt.Errorf("%s=%q: want dynamodb, postgres or redis", envStore, s.store)
	}
}

// awsConfig is the AWS SDK's default configuration, with the region and
// the static credentials of the variables read through getenv when they
// are set (the SDK reads the same names from the process's environment).
func awsConfig(ctx context.Context, getenv func(string) string) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if r := getenv("AWS_REGION"); r != "" {
		opts = append(opts, awsconfig.WithRegion(r))
	}
	if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN"))))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	return cfg, nil
}
