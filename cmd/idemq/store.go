package main

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore/dynamoenv"
	"github.com/idemq/idemq/idem/pgstore/pgenv"
	"github.com/idemq/idemq/idem/redisstore/redisenv"
	idemstores "github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
)

// openStore connects to the store the settings name, with the openers
// the worker opens it with (idemstores.Open), and returns it with the
// function that closes its connections. It asks for what the store lacks
// (its table, its URL) first, naming each variable with its flag. The AWS
// SDK logs to stderr; the DynamoDB client's region is kept in s.region.
func openStore(ctx context.Context, s *settings, getenv func(string) string, stderr io.Writer) (idem.Admin, func(), error) {
	if err := idemqenv.CheckStore(idemqenv.Command, s.read.Store); err != nil {
		return nil, nil, err
	}
	loadAWS := func(ctx context.Context) (aws.Config, error) {
		cfg, err := awsConfig(ctx, getenv, stderr)
		s.region = cfg.Region
		return cfg, err
	}
	st, closeStore, err := idemstores.Open(ctx, s.read.Store, idemstores.Config{AWS: loadAWS},
		dynamoenv.Opener(), pgenv.Opener(), redisenv.Opener())
	if err != nil {
		return nil, nil, idemstores.Redact(idemqenv.SettingError(err), s.storeURL)
	}
	return st, closeStore, nil
}

// awsConfig is the AWS SDK's default configuration, with the region and
// the static credentials of the variables read through getenv when they
// are set (the SDK reads the same names from the process's environment),
// logging to stderr. A configuration with no region, or whose credentials
// cannot be had, is refused before any request, in a line that says what
// to set (firstrun.go).
func awsConfig(ctx context.Context, getenv func(string) string, stderr io.Writer) (aws.Config, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if r := getenv("AWS_REGION"); r != "" {
		opts = append(opts, awsconfig.WithRegion(r))
	}
	if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN"))))
	}
	opts = append(opts, awsconfig.WithLogger(logging.NewStandardLogger(stderr)))
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	if err := checkAWS(ctx, cfg); err != nil {
		return aws.Config{}, err
	}
	return cfg, nil
}
