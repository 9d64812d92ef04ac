package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storeenv"
)

// The environment variables the command reads: the worker's (the store's
// are internal/storeenv's, which the worker reads them with; the others
// lambda/config.go reads under the same names), and the AWS SDK's.
const (
	envStore        = storeenv.Store            // dynamodb (default), postgres or redis
	envTable        = storeenv.Table            // DynamoDB or PostgreSQL table; key prefix on Redis
	envStoreURL     = storeenv.StoreURL         // postgres:// or redis:// URL
	envEndpoint     = storeenv.DynamoDBEndpoint // DynamoDB endpoint, for DynamoDB Local
	envNamespace    = "IDEMQ_NAMESPACE"         // key namespace
	envRecordExpiry = "IDEMQ_RECORD_EXPIRY"     // how long records live (for --older-than)
	envBlobBucket   = storeenv.BlobBucket       // S3 bucket of offloaded results
	envBlobPrefix   = storeenv.BlobPrefix       // object key prefix in the bucket
	envSQSEndpoint  = "IDEMQ_SQS_ENDPOINT"      // SQS endpoint, for a local SQS server
)

// defaultBlobPrefix is the worker's IDEMQ_BLOB_PREFIX default.
const defaultBlobPrefix = storeenv.DefaultBlobPrefix

// settings are a command's settings: each variable, overridden by its
// flag, and the flags every command takes.
type settings struct {
	store, table, storeURL, endpoint, namespace string
	blobBucket, blobPrefix, sqsEndpoint         string
	expiry                                      time.Duration
	raw, yes, json                              bool
	region                                      string // the DynamoDB client's AWS region, once the store is open
}

// register adds the settings' flags to fs. A flag left unset takes its
// variable (fromEnv); the help never shows a variable's value, which may
// hold the store's password.
func (s *settings) register(fs *flag.FlagSet) {
	fs.StringVar(&s.store, "store", "", "the store: dynamodb, postgres or redis (env "+envStore+"; default dynamodb)")
	fs.StringVar(&s.table, "table", "", "the table of records; the key prefix on Redis (env "+envTable+")")
	fs.StringVar(&s.storeURL, "store-url", "", "the postgres:// or redis:// URL of the store (env "+envStoreURL+")")
	fs.StringVar(&s.endpoint, "dynamodb-endpoint", "", "DynamoDB endpoint URL, for DynamoDB Local (env "+envEndpoint+")")
	fs.StringVar(&s.namespace, "namespace", "", "the key namespace the worker puts before each key (env "+envNamespace+")")
	fs.StringVar(&s.blobBucket, "blob-bucket", "", "the S3 bucket of offloaded results, to name their objects (env "+envBlobBucket+")")
	fs.StringVar(&s.blobPrefix, "blob-prefix", "", "the object key prefix in the bucket (env "+envBlobPrefix+"; default "+defaultBlobPrefix+")")
	fs.StringVar(&s.sqsEndpoint, "sqs-endpoint", "", "SQS endpoint URL, for a local SQS server (env "+envSQSEndpoint+")")
	fs.DurationVar(&s.expiry, "record-expiry", 0, "how long the worker's records live, to date them for --older-than (env "+envRecordExpiry+"; default idem.DefaultExpiry, 960h)")
	fs.BoolVar(&s.raw, "raw", false, "KEY is a stored key (namespace#key) as it is")
	fs.BoolVar(&s.yes, "yes", false, "do not ask before changing anything")
	fs.BoolVar(&s.json, "json", false, "print JSON, one object per record or change, for scripts")
}

// fromEnv fills each setting whose flag fs did not set from its
// variable, read through getenv, and the record expiry's default.
func (s *settings) fromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, v := range s.variables() {
		if !set[v.flag] {
			*v.value = getenv(v.env)
		}
	}
	if set["record-expiry"] {
		if s.expiry <= 0 {
			return fmt.Errorf("--record-expiry %s: want a positive duration", s.expiry)
		}
		return nil
	}
	s.expiry = idem.DefaultExpiry
	if v := getenv(envRecordExpiry); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q: want a positive Go duration, like 960h", envRecordExpiry, v)
		}
		s.expiry = d
	}
	return nil
}

// variable is a setting that a variable holds and a flag overrides.
type variable struct {
	flag, env string
	value     *string
}

// variables are the settings a variable holds, each with its flag.
func (s *settings) variables() []variable {
	return []variable{
		{"store", envStore, &s.store}, {"table", envTable, &s.table}, {"store-url", envStoreURL, &s.storeURL},
		{"dynamodb-endpoint", envEndpoint, &s.endpoint}, {"namespace", envNamespace, &s.namespace},
		{"blob-bucket", envBlobBucket, &s.blobBucket}, {"blob-prefix", envBlobPrefix, &s.blobPrefix},
		{"sqs-endpoint", envSQSEndpoint, &s.sqsEndpoint},
	}
}

// key is the stored key of the key an operator typed: the namespace put
// before it as the worker's handler does (idem.ClientKey), or with --raw
// the key as it is.
func (s *settings) key(typed string) (idem.Key, error) {
	if s.raw {
		if typed == "" {
			return "", fmt.Errorf("the key is empty")
		}
		return idem.Key(typed), nil
	}
	if s.namespace == "" {
		return "", fmt.Errorf("%s (or --namespace) is required to make the stored key, as the worker does; or pass the stored key with --raw", envNamespace)
	}
	return idem.ClientKey(s.namespace, typed)
}
