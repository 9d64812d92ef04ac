package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storeenv"
)

// openStore connects to the store the settings name, as the worker does
// (internal/storeenv), and returns it with the function that closes its
// connections. It fills in s.store's default.
func openStore(ctx context.Context, s *settings, getenv func(string) string, stderr io.Writer) (idem.Admin, func(), error) {
	st := storeenv.Settings{Store: s.store, Table: s.table, URL: s.storeURL, DynamoDBEndpoint: s.endpoint}
	if strings.EqualFold(st.Store, storeenv.Memory) {
		return nil, nil, fmt.Errorf("%s=memory keeps records in the worker's process: there is nothing to inspect from outside", envStore)
	}
	flags := map[string]string{}
	for _, v := range s.variables() {
		flags[v.env] = v.flag
	}
	err := st.Check(storeenv.OnlyStores(storeenv.DynamoDB, storeenv.Postgres, storeenv.Redis), storeenv.Flags(flags))
	s.store = st.Store
	if err != nil {
		return nil, nil, err
	}
	return storeenv.Open(ctx, st, storeenv.WithAWS(func(ctx context.Context) (aws.Config, error) {
		cfg, err := awsConfig(ctx, getenv, stderr)
		s.region = cfg.Region
		return cfg, err
	}))
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
