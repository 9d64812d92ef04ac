package storeenv

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The variables that name the store of records and of offloaded results.
// The worker (lambda/) reads them; the operator's command (cmd/idemq)
// reads the same, to look at the worker's records.
const (
	Store            = "IDEMQ_STORE"             // DynamoDB (the default), Postgres, Redis or Memory
	Table            = "IDEMQ_TABLE"             // the DynamoDB or PostgreSQL table of records; on Redis the key prefix, before ":"
	StoreURL         = "IDEMQ_STORE_URL"         // the postgres:// or redis:// URL of those stores
	DynamoDBEndpoint = "IDEMQ_DYNAMODB_ENDPOINT" // DynamoDB endpoint URL, for DynamoDB Local
	BlobBucket       = "IDEMQ_BLOB_BUCKET"       // S3 bucket of offloaded results; unset: none
	BlobPrefix       = "IDEMQ_BLOB_PREFIX"       // object key prefix in the bucket; default DefaultBlobPrefix
	S3Endpoint       = "IDEMQ_S3_ENDPOINT"       // S3 endpoint URL (path-style), for a local S3 server
)

// The stores IDEMQ_STORE names.
const (
	DynamoDB = "dynamodb"
	Postgres = "postgres"
	Redis    = "redis"
	Memory   = "memory" // records live as long as the process
)

// stores are the stores, the default first.
var stores = []string{DynamoDB, Postgres, Redis, Memory}

// DefaultBlobPrefix is the object key prefix of offloaded results when
// IDEMQ_BLOB_BUCKET is set and IDEMQ_BLOB_PREFIX is not; the CDK stack's
// lifecycle rule expires objects under the prefix it passes.
const DefaultBlobPrefix = "idemq/"

// Settings name the store of records: what Open opens.
type Settings struct {
	// Store is the store, in lower case: DynamoDB, Postgres, Redis or
	// Memory. Defaults to DynamoDB (Check fills it in).
	Store string
	// Table is the DynamoDB or PostgreSQL table of records, required
	// with those stores; on Redis the key prefix, which Open ends with
	// ":". Defaults to none (on Redis: no prefix).
	Table string
	// URL is the postgres:// or redis:// URL of those stores, required
	// with them and refused with the others. It holds the store's
	// password: no message shows it but redacted (ShowVar).
	URL string
	// DynamoDBEndpoint is the DynamoDB endpoint URL, for DynamoDB Local.
	// Defaults to the AWS endpoint.
	DynamoDBEndpoint string
}

// Read reads the settings through getenv (os.Getenv), as they are but
// for the store's name, put in lower case.
func Read(getenv func(string) string) Settings {
	return Settings{
		Store:            strings.ToLower(getenv(Store)),
		Table:            getenv(Table),
		URL:              getenv(StoreURL),
		DynamoDBEndpoint: getenv(DynamoDBEndpoint),
	}
}

// Load is Read and Check: the settings, and every bad or missing
// variable at once.
func Load(getenv func(string) string) (Settings, error) {
	s := Read(getenv)
	err := s.Check()
	return s, err
}

// A CheckOption changes what Check accepts, or how its messages name a
// variable.
type CheckOption func(*checkConfig)

type checkConfig struct {
	stores []string
	flags  map[string]string
}

// OnlyStores makes Check accept only these stores (and say so of any
// other). Defaults to all four.
func OnlyStores(names ...string) CheckOption {
	return func(c *checkConfig) { c.stores = names }
}

// Flags names, for a variable, the command-line flag that also sets it:
// a message that the variable is required names it after the variable,
// as "IDEMQ_TABLE (or --table) is required". Defaults to none.
func Flags(byVariable map[string]string) CheckOption {
	return func(c *checkConfig) { c.flags = byVariable }
}

// Check fills in the default store and checks that s names a store with
// what it requires, reporting every bad or missing variable at once (an
// errors.Join of one error each). A message shows a URL with its password
// hidden, or not at all.
func (s *Settings) Check(opts ...CheckOption) error {
	c := checkConfig{stores: stores}
	for _, o := range opts {
		o(&c)
	}
	name := func(variable string) string {
		if f, ok := c.flags[variable]; ok {
			return variable + " (or --" + f + ")"
		}
		return variable
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	s.Store = strings.ToLower(s.Store)
	if s.Store == "" {
		s.Store = DynamoDB
	}
	switch {
	case !slices.Contains(c.stores, s.Store):
		bad("%s=%q: want %s", Store, s.Store, oneOf(c.stores))
	case s.Store == DynamoDB:
		if s.Table == "" {
			bad("%s is required: the name of the DynamoDB idempotency table", name(Table))
		}
	case s.Store == Postgres:
		if s.Table == "" {
			bad("%s is required with %s=postgres: the name of the PostgreSQL table of records", name(Table), Store)
		}
		if err := checkStoreURL(s.URL, name(StoreURL), "postgres", "postgresql"); err != nil {
			bad("%v; want a postgres:// URL with %s=postgres", err, Store)
		}
	case s.Store == Redis:
		if err := checkStoreURL(s.URL, name(StoreURL), "redis", "rediss"); err != nil {
			bad("%v; want a redis:// or rediss:// URL with %s=redis", err, Store)
		}
	}
	if s.URL != "" && s.Store != Postgres && s.Store != Redis {
		bad("%s is set but %s is %s: only the postgres and redis stores take a URL", StoreURL, Store, s.Store)
	}
	return errors.Join(errs...)
}

// oneOf is "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkStoreURL accepts a URL of one of schemes, as pgx and go-redis read
// it. Its error names IDEMQ_STORE_URL (as required, named) and shows the
// value with its password hidden, or not at all (ShowVar): a store URL
// holds the store's password.
func checkStoreURL(s, required string, schemes ...string) error {
	if s == "" {
		return fmt.Errorf("%s is required", required)
	}
	var why string
	u, err := url.Parse(s)
	switch {
	case err != nil:
		why = "not a valid URL (percent-encode the reserved characters @ : / ? # in the user name and password)"
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		why = "not a URL with a scheme and a host (a key=value connection string is not taken)"
	case !slices.Contains(schemes, s[:len(u.Scheme)]):
		why = fmt.Sprintf("the scheme is %q", s[:len(u.Scheme)])
		if slices.Contains(schemes, u.Scheme) {
			why += ", which must be written in lower case"
		}
	default:
		if _, ok := RedactURL(s); !ok {
			why = "an '@' outside the user information (percent-encode @ : / ? # in the user name and password, and an '@' elsewhere as %40)"
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", ShowVar(StoreURL, s), why)
}
