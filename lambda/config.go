package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The environment variables the worker reads. The infra/ stack sets the
// first five, IDEMQ_NAMESPACE, and IDEMQ_PROVIDER_API_KEY_SECRET when given a
// secret.
const (
	envTable        = "IDEMQ_TABLE"                   // DynamoDB table name; required with the dynamodb store
	envRecordExpiry = "IDEMQ_RECORD_EXPIRY"           // Go duration; default idem.DefaultExpiry
	envKeyField     = "IDEMQ_KEY_FIELD"               // JSON body field of the key; default handler.DefaultKeyField
	envBackoff      = "IDEMQ_BACKOFF"                 // "false" turns the in-progress back-off through SQS off; default on
	envProviderURL  = "IDEMQ_PROVIDER_URL"            // OpenAI-compatible base URL; required
	envLease        = "IDEMQ_LEASE"                   // Go duration; default: from the invocation's deadline
	envEndpoint     = "IDEMQ_DYNAMODB_ENDPOINT"       // DynamoDB endpoint URL, for DynamoDB Local
	envStore        = "IDEMQ_STORE"                   // "dynamodb" (default), "postgres", "redis" or "memory" (local runs)
	envStoreURL     = "IDEMQ_STORE_URL"               // connection URL of the postgres or redis store
	envNamespace    = "IDEMQ_NAMESPACE"               // key namespace; default the function's name
	envAPIKey       = "IDEMQ_PROVIDER_API_KEY"        // bearer token for the provider; optional
	envAPIKeySecret = "IDEMQ_PROVIDER_API_KEY_SECRET" // Secrets Manager secret (name or ARN) holding the bearer token; optional
	envEMF          = "IDEMQ_EMF_NAMESPACE"           // CloudWatch namespace for EMF metrics; off when unset
	envSQSEndpoint  = "IDEMQ_SQS_ENDPOINT"            // SQS endpoint URL for the back-off, for a local SQS server
	envQueueURL     = "IDEMQ_QUEUE_URL"               // queue URL for the back-off; default: derived from the event source ARN
	envConcurrency  = "IDEMQ_CONCURRENCY"             // records of a batch at once; default handler.DefaultConcurrency
	envHeartbeat    = "IDEMQ_HEARTBEAT"               // Go duration; extend a running record's lease this often; default off
)

// config is the worker's configuration, read from the environment once at
// start-up.
type config struct {
	store        string // "dynamodb", "postgres", "redis" or "memory"
	storeURL     string // postgres:// or redis:// URL
	table        string
	endpoint     string
	expiry       time.Duration // 0: the default
	lease        time.Duration // 0: the default
	keyField     string        // "": handler's default
	backoff      bool
	providerURL  string
	apiKey       string
	apiKeySecret string        // "": no secret; else read into apiKey at start-up
	namespace    string        // "": the function's name
	emfNamespace string        // "": no EMF
	sqsEndpoint  string        // "": the AWS endpoint
	queueURL     string        // "": derived from each record's event source ARN
	concurrency  int           // records of a batch at once; 0: handler's default
	heartbeat    time.Duration // 0: no heartbeat
}

// loadConfig reads the configuration through getenv (os.Getenv), reporting
// every bad or missing variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		store:        strings.ToLower(getenv(envStore)),
		storeURL:     getenv(envStoreURL),
		table:        getenv(envTable),
		endpoint:     getenv(envEndpoint),
		keyField:     getenv(envKeyField),
		providerURL:  getenv(envProviderURL),
		apiKey:       getenv(envAPIKey),
		apiKeySecret: getenv(envAPIKeySecret),
		namespace:    getenv(envNamespace),
		emfNamespace: getenv(envEMF),
		sqsEndpoint:  getenv(envSQSEndpoint),
		queueURL:     getenv(envQueueURL),
	}
	errs := checkStore(&c)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.endpoint != "" {
		if err := checkURL(c.endpoint); err != nil {
			bad("%s: %v", showVar(envEndpoint, c.endpoint), err)
		}
	}
	var err error
	if c.expiry, err = duration(getenv, envRecordExpiry); err != nil {
		errs = append(errs, err)
	}
	if c.lease, err = duration(getenv, envLease); err != nil {
		errs = append(errs, err)
	}
	if c.heartbeat, err = duration(getenv, envHeartbeat); err != nil {
		errs = append(errs, err)
	}
	if v := getenv(envConcurrency); v != "" {
		if c.concurrency, err = strconv.Atoi(v); err != nil || c.concurrency < 1 {
			bad("%s=%q: want a whole number of at least 1", envConcurrency, v)
		}
	}
	// The back-off is on unless turned off: without it an in-progress
	// message spends a receive every visibility timeout and can reach the
	// dead-letter queue with its work undone.
	c.backoff = true
	if v := getenv(envBackoff); v != "" {
		if c.backoff, err = strconv.ParseBool(v); err != nil {
			bad("%s=%q: want true or false", envBackoff, v)
		}
	}
	// The back-off's queue: only the back-off talks to SQS, so either
	// variable without it is a mistake, not a setting.
	for _, v := range []struct{ name, value string }{{envSQSEndpoint, c.sqsEndpoint}, {envQueueURL, c.queueURL}} {
		switch {
		case v.value == "":
		case !c.backoff:
			bad("%s is set but %s is false: only the in-progress back-off talks to SQS", v.name, envBackoff)
		default:
			if err := checkURL(v.value); err != nil {
				bad("%s: %v", showVar(v.name, v.value), err)
			}
		}
	}
	switch {
	case c.providerURL == "":
		bad("%s is required: the model provider's OpenAI-compatible base URL, like https://api.openai.com/v1", envProviderURL)
	default:
		if err := checkURL(c.providerURL); err != nil {
			bad("%s: %v", showVar(envProviderURL, c.providerURL), err)
		}
	}
	if c.apiKey != "" && c.apiKeySecret != "" {
		bad("%s and %s are both set: set one (%s for a deployed function, so that its configuration holds no key)", envAPIKey, envAPIKeySecret, envAPIKeySecret)
	}
	return c, errors.Join(errs...)
}

// checkStore defaults and checks the store's variables (IDEMQ_STORE,
// IDEMQ_STORE_URL, IDEMQ_TABLE) in c.
func checkStore(c *config) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	switch c.store {
	case "":
		c.store = "dynamodb"
		fallthrough
	case "dynamodb":
		if c.table == "" {
			bad("%s is required: the name of the DynamoDB idempotency table", envTable)
		}
	case "postgres":
		if c.table == "" {
			bad("%s is required with %s=postgres: the name of the PostgreSQL table of records", envTable, envStore)
		}
		if err := checkStoreURL(c.storeURL, "postgres", "postgresql"); err != nil {
			bad("%v; want a postgres:// URL with %s=postgres", err, envStore)
		}
	case "redis":
		if err := checkStoreURL(c.storeURL, "redis", "rediss"); err != nil {
			bad("%v; want a redis:// or rediss:// URL with %s=redis", err, envStore)
		}
	case "memory":
	default:
		bad("%s=%q: want dynamodb, postgres, redis or memory", envStore, c.store)
	}
	if c.storeURL != "" && c.store != "postgres" && c.store != "redis" {
		bad("%s is set but %s is %s: only the postgres and redis stores take a URL", envStoreURL, envStore, c.store)
	}
	return errs
}

// duration reads an optional positive Go duration.
func duration(getenv func(string) string, name string) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a Go duration (like 120h or 90s)", name, v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s=%q: must be positive", name, v)
	}
	return d, nil
}

// checkURL accepts an absolute http or https URL. Its error never quotes
// s, which may hold a password.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http(s) URL")
	}
	return nil
}

// checkStoreURL accepts a URL of one of schemes, as pgx and go-redis read
// it. Its error names envStoreURL and shows the value with its password
// hidden, or not at all (showVar): a store URL holds the store's password.
func checkStoreURL(s string, schemes ...string) error {
	if s == "" {
		return fmt.Errorf("%s is required", envStoreURL)
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
		if _, ok := redactURL(s); !ok {
			why = "an '@' outside the user information (percent-encode @ : / ? # in the user name and password, and an '@' elsewhere as %40)"
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", showVar(envStoreURL, s), why)
}
