package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/recordkey"
	"github.com/idemq/idemq/internal/storeenv"
	"github.com/idemq/idemq/request"
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
	envKeyField     = "IDEMQ_KEY_FIELD"         // JSON body member of the key, for --body
	envKeyFields    = "IDEMQ_KEY_FIELDS"        // JSON body members of a natural key, comma-separated, for --body
	envKeyAttribute = "IDEMQ_KEY_ATTRIBUTE"     // message attribute of the key
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
	keyField, keyFields, keyAttribute           string
	blobBucket, blobPrefix, sqsEndpoint         string
	expiry                                      time.Duration
	raw, yes, json                              bool
	// scope and body name a key (registerKey): a front door caller's
	// scope, and a message body to read the key from.
	scope, body string
	// region is the DynamoDB client's AWS region, once the store is open.
	region string
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
	fs.StringVar(&s.keyField, "key-field", "", "the JSON body member holding the key, for --body (env "+envKeyField+"; default "+request.DefaultKeyField+")")
	fs.StringVar(&s.keyFields, "key-fields", "", "the JSON body members that make a natural key, comma-separated, for --body (env "+envKeyFields+")")
	fs.StringVar(&s.keyAttribute, "key-attribute", "", "the message attribute holding the key (env "+envKeyAttribute+")")
	fs.StringVar(&s.blobBucket, "blob-bucket", "", "the S3 bucket of offloaded results, to name their objects (env "+envBlobBucket+")")
	fs.StringVar(&s.blobPrefix, "blob-prefix", "", "the object key prefix in the bucket (env "+envBlobPrefix+"; default "+defaultBlobPrefix+")")
	fs.StringVar(&s.sqsEndpoint, "sqs-endpoint", "", "SQS endpoint URL, for a local SQS server (env "+envSQSEndpoint+")")
	fs.DurationVar(&s.expiry, "record-expiry", 0, "how long the worker's records live, to date them for --older-than (env "+envRecordExpiry+"; default idem.DefaultExpiry, 960h)")
	fs.BoolVar(&s.raw, "raw", false, "KEY is a stored key (namespace#key, namespace:scope#key) as it is, in the namespace if one is set")
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
		{"key-field", envKeyField, &s.keyField}, {"key-fields", envKeyFields, &s.keyFields}, {"key-attribute", envKeyAttribute, &s.keyAttribute},
		{"blob-bucket", envBlobBucket, &s.blobBucket}, {"blob-prefix", envBlobPrefix, &s.blobPrefix},
		{"sqs-endpoint", envSQSEndpoint, &s.sqsEndpoint},
	}
}

// registerKey adds the flags that name a key to fs: the commands that
// take a KEY.
func (s *settings) registerKey(fs *flag.FlagSet) {
	fs.StringVar(&s.scope, "scope", "", "the scope of the front door caller the request was made for (its key is namespace:scope#key)")
	fs.StringVar(&s.body, "body", "", "a message body to read the key from, with the worker's key settings, instead of KEY "+
		`(--body '{"document_id":"doc-1","version":1}')`)
}

// recordKey is the stored key that the positional arguments (KEY, or
// none with --body) and the key flags name: the key the worker's handler
// claims for it, made through the request contract by the worker's key
// settings (internal/recordkey), or with --raw the key as it is.
func (s *settings) recordKey(pos []string) (idem.Key, error) {
	t := recordkey.Typed{Body: s.body, Scope: s.scope, Raw: s.raw}
	switch {
	case len(pos) == 1:
		t.Value = pos[0]
	case len(pos) > 1 || s.body == "":
		return "", fmt.Errorf("want one KEY, or --body and no KEY; got %d argument(s)", len(pos))
	}
	key, err := s.keySettings().Key(t)
	if errors.Is(err, recordkey.ErrUsage) && s.namespace == "" && !s.raw {
		return "", fmt.Errorf("%s (or --namespace) is required to make the stored key, as the worker does; or pass the stored key with --raw", envNamespace)
	}
	return key, err
}

// keySettings are the worker's key settings.
func (s *settings) keySettings() recordkey.Settings {
	return recordkey.Settings{Namespace: s.namespace, KeyField: s.keyField, KeyFields: s.keyFields, KeyAttribute: s.keyAttribute}
}
