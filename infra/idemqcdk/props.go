package idemqcdk

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
)

// Defaults used when a WorkerProps field is left zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMemoryMB    = 256
	DefaultRetention   = 4 * 24 * time.Hour // SQS's own default
	DefaultMaxReceives = 5                  // AWS's recommended minimum
	DefaultBatchSize   = 10
	// DLQRetention is the dead-letter queue's retention, the longest SQS
	// allows, so a failed message stays there as long as possible.
	DLQRetention = 14 * 24 * time.Hour
)

// WorkerProps configures a Worker. The zero value of every field but Code
// takes the default its comment gives.
type WorkerProps struct {
	// Code is the function's code: a directory holding an executable named
	// bootstrap. Use GoCode to build it from a Go main package at synth, or
	// awslambda.Code_FromAsset for a directory built elsewhere. Required.
	Code awslambda.Code

	// Timeout is the function's timeout, in whole seconds, 1 s to 15 min.
	// Defaults to DefaultTimeout.
	Timeout time.Duration
	// MemoryMB is the function's memory in MB, 128 to 10240. Defaults to
	// DefaultMemoryMB.
	MemoryMB int

	// Retention is the queue's message retention period, whole seconds,
	// 60 s to 14 days. Defaults to DefaultRetention.
	Retention time.Duration
	// VisibilityTimeout is the queue's visibility timeout, whole seconds,
	// at least Timeout and at most 12 h. Defaults to 6 × Timeout +
	// BatchingWindow, AWS's guidance for queues feeding Lambda.
	VisibilityTimeout time.Duration
	// MaxReceives is how many times a message is received before it moves
	// to the dead-letter queue (the redrive policy's maxReceiveCount),
	// 1 to 1000. Defaults to DefaultMaxReceives.
	MaxReceives int
	// FIFO makes the queue and its dead-letter queue FIFO queues. Defaults
	// to false (standard queues).
	FIFO bool

	// BatchSize is the most messages one invocation receives: 1 to 10 on a
	// FIFO queue; 1 to 10,000 on a standard queue, where more than 10 needs
	// a BatchingWindow of at least 1 s. Defaults to DefaultBatchSize.
	BatchSize int
	// BatchingWindow is how long the event source gathers messages before
	// invoking the function (MaximumBatchingWindowInSeconds), whole
	// seconds, 0 to 300 s; FIFO queues take none. Defaults to 0.
	BatchingWindow time.Duration
	// MaxConcurrency caps how many invocations the event source runs at
	// once, 2 to 1000. Defaults to 0: no cap but the account's.
	MaxConcurrency int

	// RecordExpiry is how long an idempotency record lives. It must be at
	// least the message lifetime (handler.QueueSettings.MessageLifetime).
	// Defaults to handler.RecordLifetime of the queue's settings.
	RecordExpiry time.Duration
	// KeyField is the JSON field of the message body holding the
	// idempotency key, passed as IDEMQ_KEY_FIELD. Defaults to empty: the
	// variable is not set and the worker's own default applies.
	KeyField string
	// Namespace prefixes every idempotency key, passed as IDEMQ_NAMESPACE.
	// It must stay the same for the records' lifetime: a new namespace
	// makes every earlier record unreachable. Defaults to the construct's
	// path (e.g. "Idemq/Worker"), which, unlike the function's generated
	// name, survives the function being replaced.
	Namespace string
	// Backoff turns on the worker's in-progress back-off: it grants
	// sqs:ChangeMessageVisibility on the queue and sets IDEMQ_BACKOFF to
	// "true". Defaults to false.
	Backoff bool
	// ProviderAPIKeySecret is a Secrets Manager secret whose SecretString
	// is the model provider's API key. The function may read it (the
	// secret's GrantRead) and is given its complete ARN as
	// EnvProviderAPIKeySecret, or its name when CDK knows no complete ARN
	// (a secret imported by name or partial ARN); the worker reads it once
	// at start-up. A secret encrypted with a customer-managed KMS key must
	// carry that key (its EncryptionKey: a Secret created with one, or
	// awssecretsmanager.Secret_FromSecretAttributes with EncryptionKey set):
	// the function may then use the key for kms:Decrypt, through Secrets
	// Manager in the secret's region only. Defaults to nil: no API key.
	ProviderAPIKeySecret awssecretsmanager.ISecret
	// Environment holds further variables for the function, such as
	// EnvProviderURL. A name the Worker sets itself (EnvTable,
	// EnvRecordExpiry, EnvKeyField, EnvNamespace, EnvBackoff,
	// EnvProviderAPIKeySecret) is rejected, and so is EnvProviderAPIKey: the
	// function's configuration would hold the key in plain text. Defaults
	// to none.
	Environment map[string]string
}
