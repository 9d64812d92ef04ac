package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storeenv"
	"github.com/idemq/idemq/queue"
	idemqrequest "github.com/idemq/idemq/request"
)

// The environment variables the worker reads. The infra/ stack sets the
// first five, IDEMQ_NAMESPACE, IDEMQ_QUEUE and IDEMQ_EMF_NAMESPACE,
// IDEMQ_PROVIDER_API_KEY_SECRET when given a secret, and IDEMQ_BLOB_BUCKET
// and IDEMQ_BLOB_PREFIX with its result bucket.
const (
	envMode         = "IDEMQ_MODE"                    // "worker" (the default), "frontdoor" (lambda/frontdoor.go) or "dispatch" (lambda/dispatch.go)
	envTable        = storeenv.Table                  // the store's table; required with the dynamodb and postgres stores
	envRecordExpiry = "IDEMQ_RECORD_EXPIRY"           // Go duration; default idem.DefaultExpiry
	envKeyField     = "IDEMQ_KEY_FIELD"               // JSON body field of the key; default handler.DefaultKeyField
	envKeyFields    = "IDEMQ_KEY_FIELDS"              // JSON body fields that together make the key (a natural key), comma-separated; not with IDEMQ_KEY_FIELD; default none
	envBackoff      = "IDEMQ_BACKOFF"                 // "false" turns the in-progress back-off through SQS off; default on
	envProviderURL  = "IDEMQ_PROVIDER_URL"            // OpenAI-compatible base URL; required
	envLease        = "IDEMQ_LEASE"                   // Go duration; default: from the invocation's deadline
	envEndpoint     = storeenv.DynamoDBEndpoint       // DynamoDB endpoint URL, for DynamoDB Local
	envStore        = storeenv.Store                  // "dynamodb" (default), "postgres", "redis" or "memory" (local runs)
	envStoreURL     = storeenv.StoreURL               // connection URL of the postgres or redis store
	envNamespace    = "IDEMQ_NAMESPACE"               // key namespace; default the function's name
	envAPIKey       = "IDEMQ_PROVIDER_API_KEY"        // bearer token for the provider; optional
	envAPIKeySecret = "IDEMQ_PROVIDER_API_KEY_SECRET" // Secrets Manager secret (name or ARN) holding the bearer token; optional
	envEMF          = "IDEMQ_EMF_NAMESPACE"           // CloudWatch namespace for EMF metrics; off when unset
	envSQSEndpoint  = "IDEMQ_SQS_ENDPOINT"            // SQS endpoint URL for the back-off, for a local SQS server
	envQueueURL     = "IDEMQ_QUEUE_URL"               // queue URL for the back-off; default: derived from the event source ARN
	envConcurrency  = "IDEMQ_CONCURRENCY"             // records of a batch at once; default handler.DefaultConcurrency
	envHeartbeat    = "IDEMQ_HEARTBEAT"               // Go duration; extend a running record's lease this often; needs IDEMQ_LEASE; default off
	envCompress     = "IDEMQ_COMPRESS_ABOVE"          // bytes above which results are stored gzipped, or "off"; default idem.DefaultCompressAbove
	envQueue        = "IDEMQ_QUEUE"                   // the queue's settings as JSON (queue.Settings); the expiry and lease are checked against them; default unchecked
	envBlobBucket   = storeenv.BlobBucket             // S3 bucket for results above IDEMQ_OFFLOAD_ABOVE; unset: no offload
	envBlobPrefix   = storeenv.BlobPrefix             // object key prefix in IDEMQ_BLOB_BUCKET; default defaultBlobPrefix
	envOffloadAbove = "IDEMQ_OFFLOAD_ABOVE"           // stored size in bytes above which results go to the bucket; default idem.DefaultOffloadAbove
	envS3Endpoint   = storeenv.S3Endpoint             // S3 endpoint URL (path-style), for a local S3 server
)

// defaultBlobPrefix is the object key prefix when IDEMQ_BLOB_BUCKET is set
// and IDEMQ_BLOB_PREFIX is not.
const defaultBlobPrefix = storeenv.DefaultBlobPrefix

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
	keyFields    string        // IDEMQ_KEY_FIELDS, comma-separated; "": the key is keyField's
	backoff      bool
	providerURL  string
	apiKey       string
	apiKeySecret string        // "": no secret; else read into apiKey at start-up
	namespace    string        // "": the function's name
	emfNamespace string        // "": no EMF
	sqsEndpoint  string        // "": the AWS endpoint
	queueURL     string        // "": derived from each record's event source ARN
	concurrency  int           // records of a batch at once; 0: handler's default
	invocations  int           // AWS_LAMBDA_MAX_CONCURRENCY, batches at once; 0 or 1: one
	heartbeat    time.Duration // 0: no heartbeat
	// compressAbove is idem.Config.CompressAbove: 0 the default, -1 off.
	compressAbove int
	blobBucket    string // "": no offload
	blobPrefix    string // object key prefix; set when blobBucket is
	offloadAbove  int    // idem.Config.OffloadAbove; 0: the default
	s3Endpoint    string // "": the AWS endpoint
	// consumer is consumer mode's settings (lambda/consumer.go); its
	// queueURL is "" in Lambda mode.
	consumer consumerConfig
	// dispatch is dispatch mode's settings (lambda/dispatch.go); its
	// function is "" outside it.
	dispatch dispatchConfig
	tracing  string // IDEMQ_TRACING: "otel" or "xray"; "": off (lambda/tracing.go)
	// frontDoor is front-door mode's settings (lambda/frontdoor.go).
	frontDoor frontDoorConfig
	// queue is the queue's settings from IDEMQ_QUEUE; its zero value
	// (Retention 0, which no queue has) means none were given.
	queue queue.Settings
}

// loadConfig reads the configuration through getenv (os.Getenv), reporting
// every bad or missing variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	switch mode := strings.ToLower(getenv(envMode)); mode {
	case "", modeWorker, modeFrontDoor: // front-door mode is read with the worker's (checkFrontDoor)
	case modeDispatch:
		return loadDispatch(getenv) // lambda/dispatch.go
	default:
		return config{}, fmt.Errorf("%s=%q: want %s (the default), %s or %s", envMode, mode, modeWorker, modeFrontDoor, modeDispatch)
	}
	st := storeenv.Read(getenv)
	c := config{
		store:        st.Store,
		storeURL:     st.URL,
		table:        st.Table,
		endpoint:     st.DynamoDBEndpoint,
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
	errs = append(errs, checkKeyFields(&c, getenv)...)
	errs = append(errs, checkBlobs(&c, getenv)...)
	errs = append(errs, checkConsumer(&c, getenv)...)
	errs = append(errs, checkTracing(&c, getenv)...)
	errs = append(errs, checkFrontDoor(&c, getenv)...) // after the consumer: the two modes exclude each other
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.endpoint != "" {
		if err := checkURL(c.endpoint); err != nil {
			bad("%s: %v", storeenv.ShowVar(envEndpoint, c.endpoint), err)
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
	switch v := getenv(envCompress); {
	case v == "":
	case strings.EqualFold(v, "off"):
		c.compressAbove = -1
	default:
		if c.compressAbove, err = strconv.Atoi(v); err != nil || c.compressAbove < 1 {
			bad("%s=%q: want a size in bytes of at least 1, or off", envCompress, v)
		}
	}
	if n := maxConcurrency(getenv); n > 1 {
		c.invocations = n
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
	// The back-off's queue: in Lambda mode only the back-off talks to SQS,
	// so either variable without it is a mistake, not a setting.
	for _, v := range []struct{ name, value string }{{envSQSEndpoint, c.sqsEndpoint}, {envQueueURL, c.queueURL}} {
		switch {
		case v.value == "":
		case !c.backoff && !(v.name == envSQSEndpoint && c.consumer.queueURL != ""):
			bad("%s is set but %s is false: only the in-progress back-off talks to SQS", v.name, envBackoff)
		default:
			if err := checkURL(v.value); err != nil {
				bad("%s: %v", storeenv.ShowVar(v.name, v.value), err)
			}
		}
	}
	errs = append(errs, checkClaim(&c, getenv)...) // after the back-off: the lease's check depends on it
	switch {
	case c.providerURL == "" && c.frontDoor.on: // the front door calls no provider
	case c.providerURL == "":
		bad("%s is required: the model provider's OpenAI-compatible base URL, like https://api.openai.com/v1", envProviderURL)
	default:
		if err := checkURL(c.providerURL); err != nil {
			bad("%s: %v", storeenv.ShowVar(envProviderURL, c.providerURL), err)
		}
	}
	if c.apiKey != "" && c.apiKeySecret != "" {
		bad("%s and %s are both set: set one (%s for a deployed function, so that its configuration holds no key)", envAPIKey, envAPIKeySecret, envAPIKeySecret)
	}
	return c, errors.Join(errs...)
}

// checkKeyFields reads IDEMQ_KEY_FIELDS into c: comma-separated body
// fields, none empty, and not with IDEMQ_KEY_FIELD (a key has one
// source). Each field's syntax is request.Identity's to check.
func checkKeyFields(c *config, getenv func(string) string) []error {
	v := getenv(envKeyFields)
	if v == "" {
		return nil
	}
	if c.keyField != "" {
		return []error{fmt.Errorf("%s and %s are both set: a key has one source, one body field or several", envKeyField, envKeyFields)}
	}
	if slices.Contains(strings.Split(v, ","), "") {
		return []error{fmt.Errorf("%s=%q: want body fields separated by commas, like document_id,version", envKeyFields, v)}
	}
	c.keyFields = v
	return nil
}

// identity is who a request is, built once from IDEMQ_NAMESPACE,
// IDEMQ_KEY_FIELD and IDEMQ_KEY_FIELDS, for every part that meets it: the
// handler, the front door and its producer.
func (c config) identity() idemqrequest.Identity {
	id := idemqrequest.Identity{Namespace: c.namespace, KeyField: c.keyField}
	if c.keyFields != "" {
		id.KeyFields = strings.Split(c.keyFields, ",")
	}
	return id
}

// checkStore defaults and checks the store's variables (IDEMQ_STORE,
// IDEMQ_STORE_URL, IDEMQ_TABLE) in c, as storeenv does.
func checkStore(c *config) []error {
	st := c.storeSettings()
	err := st.Check()
	c.store = st.Store
	if err != nil {
		return []error{err}
	}
	return nil
}

// storeSettings are the store's settings in c.
func (c config) storeSettings() storeenv.Settings {
	return storeenv.Settings{Store: c.store, Table: c.table, URL: c.storeURL, DynamoDBEndpoint: c.endpoint}
}

// checkBlobs reads the blob store's variables (IDEMQ_BLOB_BUCKET,
// IDEMQ_BLOB_PREFIX, IDEMQ_OFFLOAD_ABOVE, IDEMQ_S3_ENDPOINT) into c. Only
// the bucket turns offloading on, so any of the others without it is a
// mistake, not a setting.
func checkBlobs(c *config, getenv func(string) string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	c.blobBucket = getenv(envBlobBucket)
	prefix, above, endpoint := getenv(envBlobPrefix), getenv(envOffloadAbove), getenv(envS3Endpoint)
	if c.blobBucket == "" {
		for _, v := range []struct{ name, value string }{{envBlobPrefix, prefix}, {envOffloadAbove, above}, {envS3Endpoint, endpoint}} {
			if v.value != "" {
				bad("%s is set but %s is not: results are offloaded only to a bucket", v.name, envBlobBucket)
			}
		}
		return errs
	}
	if strings.HasPrefix(c.blobBucket, "s3://") || strings.Contains(c.blobBucket, "/") {
		bad("%s=%q: want the bucket's name, like my-results, not a URL or a path (the prefix is %s)", envBlobBucket, c.blobBucket, envBlobPrefix)
	}
	c.blobPrefix = prefix
	if c.blobPrefix == "" {
		c.blobPrefix = defaultBlobPrefix
	}
	if above != "" {
		var err error
		if c.offloadAbove, err = strconv.Atoi(above); err != nil || c.offloadAbove < 1 {
			bad("%s=%q: want a size in bytes of at least 1", envOffloadAbove, above)
		}
	}
	if endpoint != "" {
		if err := checkURL(endpoint); err != nil {
			bad("%s: %v", storeenv.ShowVar(envS3Endpoint, endpoint), err)
		}
		c.s3Endpoint = endpoint
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

// checkClaim reads IDEMQ_QUEUE into c and checks the claim's settings
// (IDEMQ_RECORD_EXPIRY, IDEMQ_LEASE, IDEMQ_HEARTBEAT, read before) as far
// as the library does not: whether they hold against each other is
// idem.Config's check, made as the handler is wired (newHandler).
//
//   - A heartbeat needs a lease: without IDEMQ_LEASE the lease is the
//     invocation's time left plus a margin, which already covers all an
//     invocation can run, and the library would silently make the beat
//     at most half of it.
//   - No expiry can be shorter than SQS's shortest retention
//     (queue.MinRetention): no queue's message would find its record.
//   - With the queue's settings, the expiry (the library's default when
//     unset) must cover the message lifetime (queue.CheckExpiry without
//     the dead-letter queue: a shorter one runs redelivered work again;
//     shorter only than a redrive needs, startup warns), and a lease must
//     let a crashed worker's message be retried (queue.CheckLease).
func checkClaim(c *config, getenv func(string) string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.heartbeat > 0 && c.lease == 0 {
		bad("%s=%s is set without %s: the default lease is the invocation's time left + %s, which covers all it can run, and a beat would be cut to half of it; "+
			"set %s (shorter than the function's timeout, at least twice the beat) to use a heartbeat, or unset %s",
			envHeartbeat, c.heartbeat, envLease, idem.DefaultLeaseMargin, envLease, envHeartbeat)
	}
	if c.expiry > 0 && c.expiry < queue.MinRetention {
		bad("%s=%s is shorter than any SQS queue keeps a message (%s): every redelivery would find its record gone and run the work again; "+
			"size it with queue.RecordLifetime (the CDK stack does), or leave it unset for the library's %s",
			envRecordExpiry, c.expiry, queue.MinRetention, idem.DefaultExpiry)
	}
	v := getenv(envQueue)
	if v == "" {
		return errs
	}
	if err := json.Unmarshal([]byte(v), &c.queue); err != nil {
		bad("%s: %v; want the queue's settings as JSON, like %s", envQueue, err, queueExample)
		return errs
	}
	if err := c.queue.Validate(); err != nil {
		c.queue = queue.Settings{}
		bad("%s: %v", envQueue, err)
		return errs
	}
	inQueue := c.queue
	inQueue.DeadLetterRetention = 0
	if err := queue.CheckExpiry(inQueue, c.effectiveExpiry()); err != nil {
		bad("%s=%s against %s: %v", envRecordExpiry, c.effectiveExpiry(), envQueue, err)
	}
	if c.lease > 0 {
		if err := queue.CheckLease(c.queue, c.lease, c.backoff); err != nil {
			bad("%s=%s against %s: %v", envLease, c.lease, envQueue, err)
		}
	}
	return errs
}

// queueExample is an IDEMQ_QUEUE value, as the CDK stack writes it.
const queueExample = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`

// effectiveExpiry is the record expiry the handler will use: IDEMQ_RECORD_EXPIRY,
// or the library's default. (A negative expiry, which the library
// refuses as the handler is wired, is returned as it is.)
func (c config) effectiveExpiry() time.Duration {
	claims, err := idem.NewConfig(idem.WithExpiry(c.expiry))
	if err != nil {
		return c.expiry
	}
	return claims.Expiry
}
