package idemqenv

import (
	"time"

	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Settings are the IDEMQ_* variables, parsed: what Read returns and
// Environ writes. A zero field is an unset variable, whose default is the
// library's (the option the field sets says which), unless its doc says
// Read fills it in.
type Settings struct {
	// Program is what read them: IDEMQ_MODE's program, or Command. Read
	// fills it in (Worker when IDEMQ_MODE is unset).
	Program Program
	// Request is who a request is (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD,
	// IDEMQ_KEY_FIELDS, IDEMQ_KEY_ATTRIBUTE, IDEMQ_FINGERPRINT_FIELDS):
	// one request.Identity for every part.
	Request request.Identity
	// Store is the store of records. Read fills in its Kind
	// (stores.DynamoDB when IDEMQ_STORE is unset).
	Store stores.Settings
	// RecordExpiry is IDEMQ_RECORD_EXPIRY (idem.Config.Expiry).
	RecordExpiry time.Duration
	// Lease is IDEMQ_LEASE (idem.Config.Lease).
	Lease time.Duration
	// Heartbeat is IDEMQ_HEARTBEAT (idem.Config.Heartbeat).
	Heartbeat time.Duration
	// ClockSkew is IDEMQ_CLOCK_SKEW (idem.Config.ClockSkew).
	ClockSkew time.Duration
	// CompressAbove is IDEMQ_COMPRESS_ABOVE (idem.Config.CompressAbove):
	// -1 when it is "off".
	CompressAbove int
	// Concurrency is IDEMQ_CONCURRENCY: the records of a batch at once
	// (handler.Config.Concurrency, durable.Config.Concurrency).
	Concurrency int
	// MaxConcurrency is AWS_LAMBDA_MAX_CONCURRENCY, which Lambda sets on a
	// capacity provider: the invocations run at once in the process. Read
	// makes it 1 unless it is a whole number above 1, as aws-lambda-go
	// reads it.
	MaxConcurrency int
	// Backoff is IDEMQ_BACKOFF: give in-progress messages back at their
	// lease's end. Read makes it true when unset, in worker mode.
	Backoff bool
	// SQSEndpoint is IDEMQ_SQS_ENDPOINT: the SQS endpoint of the back-off,
	// the consumer and the front door.
	SQSEndpoint string
	// QueueURL is IDEMQ_QUEUE_URL: the back-off's queue
	// (handler.Config.QueueURL).
	QueueURL string
	// EMFNamespace is IDEMQ_EMF_NAMESPACE: the CloudWatch namespace of the
	// handler's EMF metrics; "" for none.
	EMFNamespace string
	// Queue is IDEMQ_QUEUE, the queue's settings, valid; the zero value
	// when unset.
	Queue queue.Settings
	// Blobs is the bucket of large results.
	Blobs BlobSettings
	// Provider is the reference worker's model provider.
	Provider ProviderSettings
	// Tracing is IDEMQ_TRACING: "otel" or "xray"; "" when off.
	Tracing string
	// Consumer is consumer mode's settings; its QueueURL is "" on Lambda.
	Consumer ConsumerSettings
	// FrontDoor is front-door mode's settings.
	FrontDoor FrontDoorSettings
	// Dispatch is dispatch mode's settings.
	Dispatch DispatchSettings
}

// DefaultBlobPrefix is the object key prefix of offloaded results when
// IDEMQ_BLOB_BUCKET is set and IDEMQ_BLOB_PREFIX is not; the CDK stack's
// lifecycle rule expires objects under the prefix it passes.
const DefaultBlobPrefix = "idemq/"

// BlobSettings are the bucket of results too large for a record.
type BlobSettings struct {
	// Bucket is IDEMQ_BLOB_BUCKET; "" for none.
	Bucket string
	// Prefix is IDEMQ_BLOB_PREFIX. Read fills in DefaultBlobPrefix when
	// Bucket is set.
	Prefix string
	// OffloadAbove is IDEMQ_OFFLOAD_ABOVE (idem.Config.OffloadAbove).
	OffloadAbove int
	// S3Endpoint is IDEMQ_S3_ENDPOINT, for a local S3 server (path-style).
	S3Endpoint string
}

// ProviderSettings are the reference worker's model provider.
type ProviderSettings struct {
	// URL is IDEMQ_PROVIDER_URL: an OpenAI-compatible base URL.
	URL string
	// APIKey is IDEMQ_PROVIDER_API_KEY: a bearer token, in plain text.
	APIKey string
	// APIKeySecret is IDEMQ_PROVIDER_API_KEY_SECRET: the Secrets Manager
	// secret holding the bearer token.
	APIKeySecret string
}

// ConsumerSettings are consumer mode's: the worker (or the dispatcher)
// receiving from a queue itself instead of serving Lambda.
type ConsumerSettings struct {
	// QueueURL is IDEMQ_CONSUMER_QUEUE_URL; "" on Lambda.
	QueueURL string
	// MaxRunTime is IDEMQ_CONSUMER_MAX_RUN_TIME (consumer.Config.MaxRunTime).
	MaxRunTime time.Duration
	// MaxBatches is IDEMQ_CONSUMER_MAX_BATCHES (consumer.Config.MaxBatches).
	MaxBatches int
	// GracePeriod is IDEMQ_CONSUMER_GRACE_PERIOD (consumer.Config.GracePeriod).
	GracePeriod time.Duration
	// Visibility is IDEMQ_CONSUMER_VISIBILITY
	// (consumer.Config.VisibilityTimeout).
	Visibility time.Duration
	// HealthAddr is IDEMQ_HEALTH_ADDR: where GET /healthz is served; ""
	// for nowhere.
	HealthAddr string
}

// The scopes of IDEMQ_FRONTDOOR_SCOPE.
const (
	// ScopeIAM keeps each IAM principal's keys its own: an assumed
	// role's sessions share the role's.
	ScopeIAM = "iam"
	// ScopeIAMSession keeps each IAM caller's keys its own, an assumed
	// role's sessions each a caller of their own.
	ScopeIAMSession = "iam-session"
	// ScopeNone shares one key space among every caller.
	ScopeNone = "none"
)

// FrontDoorSettings are front-door mode's.
type FrontDoorSettings struct {
	// QueueURL is IDEMQ_FRONTDOOR_QUEUE_URL: the worker's queue.
	QueueURL string
	// Path is IDEMQ_FRONTDOOR_PATH (frontdoor.Config.Path).
	Path string
	// MaxBodyBytes is IDEMQ_FRONTDOOR_MAX_BODY_BYTES
	// (frontdoor.Config.MaxBodyBytes).
	MaxBodyBytes int
	// Addr is IDEMQ_FRONTDOOR_ADDR: serve plain HTTP there; "" to serve
	// Lambda.
	Addr string
	// Scope is IDEMQ_FRONTDOOR_SCOPE: ScopeIAM, ScopeIAMSession or
	// ScopeNone. Read fills in ScopeIAM on Lambda and ScopeNone with Addr.
	Scope string
}

// DispatchSettings are dispatch mode's.
type DispatchSettings struct {
	// Function is IDEMQ_DURABLE_FUNCTION: the durable function's name or
	// ARN with its version or alias.
	Function string
	// LambdaEndpoint is IDEMQ_LAMBDA_ENDPOINT, for a local fake.
	LambdaEndpoint string
}
