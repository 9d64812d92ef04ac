package idemqcdk

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"

	"github.com/idemq/idemq/request"
)

// Defaults used when a WorkerProps field is left zero, chosen for a worker
// that spends its time waiting on a model provider (docs/deploy.md says
// why each).
const (
	// defaultTimeout covers a long completion: at 30–60 tokens a second, a
	// few thousand tokens take one to two minutes. A batch's records run
	// at once, so the invocation lasts as long as its slowest call.
	defaultTimeout = 2 * time.Minute
	// defaultMemoryMB is enough for a batch of calls in flight; an
	// invocation that waits costs memory × time, so more buys nothing.
	defaultMemoryMB    = 256
	defaultRetention   = 4 * 24 * time.Hour // SQS's own default
	defaultMaxReceives = 5                  // AWS's recommended minimum
	// NoMaxConcurrency as WorkerProps.MaxConcurrency (as 0 does) or
	// AttachmentProps.MaxConcurrency leaves the event source uncapped (the
	// account's concurrency is the limit).
	NoMaxConcurrency = -1
	// deadLetterRetention is the dead-letter queue's retention, the longest SQS
	// allows, so a failed message stays there as long as possible. The
	// default record expiry covers a redrive from it until then.
	deadLetterRetention = 14 * 24 * time.Hour
	// minDeadLetterStay is the least time a dead letter should be sure to
	// stay in the dead-letter queue: a long weekend. A Retention that
	// leaves less (over deadLetterRetention less 3 days, on a standard
	// queue) deploys with a warning.
	minDeadLetterStay = 3 * 24 * time.Hour
)

// WorkerProps configures a Worker. The zero value of every field but Code
// takes the default its comment gives.
type WorkerProps struct {
	// Code is the function's code: a directory holding an executable named
	// bootstrap. Use GoCode to build it from a Go main package at synth, or
	// awslambda.Code_FromAsset for a directory built elsewhere. Required.
	Code awslambda.Code

	// Architecture is the function's instruction set:
	// awslambda.Architecture_ARM_64() or Architecture_X86_64(). Code that
	// is a folder holding a bootstrap executable (GoCode's, or
	// awslambda.Code_FromAsset of one) must be built for it: NewWorker
	// reads the executable's ELF header and refuses another machine's.
	// Build for x86_64 with GoBuild{Arch: "amd64"}. Defaults to arm64.
	Architecture awslambda.Architecture

	// Timeout is the function's timeout, in whole seconds, 1 s to 15 min.
	// Defaults to 2 min.
	Timeout time.Duration
	// MemoryMB is the function's memory in MB, 128 to 10240. Defaults to
	// defaultMemoryMB.
	MemoryMB int

	// Retention is the queue's message retention period, whole seconds,
	// 60 s to 14 days. Defaults to 4 days.
	Retention time.Duration
	// VisibilityTimeout is the queue's visibility timeout, whole seconds,
	// at least Timeout and at most 12 h. Defaults to 6 × Timeout +
	// BatchingWindow, AWS's guidance for queues feeding Lambda.
	VisibilityTimeout time.Duration
	// MaxReceives is how many times a message is received before it moves
	// to the dead-letter queue (the redrive policy's maxReceiveCount),
	// 1 to 1000. Defaults to 5.
	MaxReceives int
	// FIFO makes the queue and its dead-letter queue FIFO queues. Defaults
	// to false (standard queues).
	FIFO bool

	// BatchSize is the most messages one invocation receives: 1 to 10 on a
	// FIFO queue; 1 to 10,000 on a standard queue, where more than 10 needs
	// a BatchingWindow of at least 1 s. Defaults to queue.DefaultBatchSize (10).
	BatchSize int
	// BatchingWindow is how long the event source gathers messages before
	// invoking the function (MaximumBatchingWindowInSeconds), whole
	// seconds, 0 to 300 s; FIFO queues take none. Defaults to 0: a batch
	// is what one poll finds, full under load, and nothing waits when the
	// queue is quiet.
	BatchingWindow time.Duration
	// MaxConcurrency caps how many invocations the event source runs at
	// once (its ScalingConfig.MaximumConcurrency), 2 to 1000. A model
	// provider limits requests a minute, and a request over the limit is
	// a record failed (a 429), retried a visibility timeout later, and
	// after its last receive a dead letter: size the cap to the limit,
	// requests a minute × a call's minutes ÷ BatchSize (10 invocations of
	// batches of 10 are at most 100 calls in flight). Defaults to 0 (or
	// NoMaxConcurrency): no cap but the account's concurrency.
	MaxConcurrency int
	// Pollers, when set, runs the event source in provisioned mode (see
	// Pollers); MaxConcurrency must then be 0 or NoMaxConcurrency. Defaults
	// to nil: on-demand polling.
	Pollers *Pollers
	// CapacityProvider, when set, runs the function on Lambda Managed
	// Instances in the given subnets (see CapacityProvider). Defaults to
	// nil: Lambda's default compute.
	CapacityProvider *CapacityProvider

	// RecordExpiry is how long an idempotency record lives. It must be at
	// least the message lifetime (queue.Settings.MessageLifetime);
	// shorter than a redrive from the dead-letter queue needs
	// (queue.Settings.RedriveLifetime, with deadLetterRetention) it
	// deploys with a warning: a message redriven more than RecordExpiry
	// less the message lifetime after it was sent may run its work again.
	// Defaults to queue.RecordLifetime of the queue's settings, the
	// dead-letter queue's retention included, so a redrive at any time
	// while the dead-letter queue keeps the message is answered from its
	// record.
	RecordExpiry time.Duration
	// Request says who a request is: its key namespace, where its key
	// comes from and which members are its fingerprint, the one
	// request.Identity the function reads back from the variables of
	// request.Fields (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD, …; idemqenv), the
	// front door too. Its
	// Namespace is required: a plain string, not a token, that stays the
	// same for the records' lifetime, since a new namespace makes every
	// earlier record unreachable and every message delivered again runs
	// its work again (neither the function's generated name nor the
	// construct's path would do: both change). The key source defaults to
	// the body's "idempotency_key" (request.DefaultKeyField). A setting no
	// variable carries (KeyFunc, NoFingerprint) lives in the function's
	// code and is refused here, as is a list member an environment
	// variable cannot carry.
	Request request.Identity
	// ProviderURL is the model provider's OpenAI-compatible base URL (such
	// as https://api.openai.com/v1), passed as envProviderURL: an absolute
	// http or https URL with a host and no user information, query or
	// fragment, checked at synth; plain http to a host that is not a
	// loopback one deploys with a warning. A token (a value known only at
	// deployment) is passed unchecked. The reference worker in lambda/
	// needs it (NewStack requires it); a worker of your own that calls no
	// provider may leave it empty. Defaults to empty: the variable is not
	// set.
	ProviderURL string
	// DisableBackoff turns off the worker's in-progress back-off. With
	// back-off on (the default) the function may call
	// sqs:ChangeMessageVisibility on its queue and IDEMQ_BACKOFF is "true":
	// a message found in progress on another worker comes back when that
	// worker's lease ends, spending one receive, rather than once every
	// visibility timeout. Off, IDEMQ_BACKOFF is "false" and no such grant
	// is made. Defaults to false (back-off on).
	DisableBackoff bool
	// DisableBlobs leaves out the bucket of large results. With it (the
	// default) the Worker has a Bucket, the function may s3:PutObject and
	// s3:GetObject under BlobPrefix there and is given envBlobBucket and
	// envBlobPrefix, so a result above the worker's offload size
	// (idem.DefaultOffloadAbove) is kept there rather than in its record.
	// Without it every result stays in its record, as before. Defaults to
	// false (bucket on).
	DisableBlobs bool
	// BlobExpiryDays is how many days the bucket's lifecycle rule keeps a
	// result: at least the record expiry (RecordExpiry, or the computed
	// one) in whole days, or the Worker is refused, since a record would
	// point to an object already expired; under a day more than the record
	// expiry it deploys with a warning. Only with the bucket. Defaults to
	// the record expiry rounded up to whole days, plus one.
	BlobExpiryDays int
	// BlobPrefix is the key prefix of the results in the bucket: the
	// lifecycle rule's prefix, the function's grant (BlobPrefix + "*") and
	// envBlobPrefix all follow it. Non-empty, at most 512 bytes
	// of letters, digits and !-_.'() in segments each ending in '/' (so no
	// leading '/', no empty segment, no '*'), not a token. Only with the
	// bucket. Defaults to defaultBlobPrefix.
	BlobPrefix string
	// Tracing traces the function (docs/tracing.md): with TracingOTel or
	// TracingXRay it is given envTracing, the collector layer
	// TracingLayerArn, and may send to X-Ray, where the layer's collector
	// exports by default (xray:PutTraceSegments, xray:PutTelemetryRecords,
	// which X-Ray grants on no narrower resource than "*"); TracingXRay
	// also turns on its active tracing, so Lambda samples invocations and
	// each batch's span continues the invocation's trace. With FrontDoor,
	// the front door's function is given the same. Defaults to TracingOff
	// (also ""): none of it.
	Tracing Tracing
	// TracingLayerArn is the ARN of a Lambda layer version holding the
	// OpenTelemetry collector, AWS's ADOT collector layer for the
	// functions' architecture in the stack's region:
	// arn:aws:lambda:REGION:901920570463:layer:aws-otel-collector-arm64-ver-X-Y-Z:N
	// (or -amd64- for x86_64).
	// Checked at synth for a layer version ARN's shape, and refused if its
	// name says another architecture (amd64 or x86_64 for an arm64
	// function, arm64 for an x86_64 one); a token (a value known only at
	// deployment) is passed unchecked. Required with
	// Tracing on; with it off, checked and unused. Defaults to empty.
	TracingLayerArn string
	// ProviderAPIKeySecret is a Secrets Manager secret whose SecretString
	// is the model provider's API key. The function may read it (the
	// secret's GrantRead) and is given its complete ARN as
	// envProviderAPIKeySecret, or its name when CDK knows no complete ARN
	// (a secret imported by name or partial ARN); the worker reads it once
	// at start-up. A secret encrypted with a customer-managed KMS key must
	// carry that key (its EncryptionKey: a Secret created with one, or
	// awssecretsmanager.Secret_FromSecretAttributes with EncryptionKey set):
	// the function may then use the key for kms:Decrypt, through Secrets
	// Manager in the secret's region only. Defaults to nil: no API key.
	ProviderAPIKeySecret awssecretsmanager.ISecret
	// FrontDoor adds an HTTP front door (Worker.FrontDoor): a second
	// function from Code in front-door mode, behind a Lambda function URL,
	// that sends each request posted with an Idempotency-Key to the queue
	// once and answers its status from the table (docs/frontdoor.md). It
	// may send to the queue, claim and read records, and read results in
	// the bucket, for every key rule Request can name.
	// Defaults to false: no front door.
	FrontDoor bool
	// FrontDoorPublic makes the front door's function URL AuthType NONE,
	// with a synth warning: anyone who finds it may post requests and read
	// results. Only with FrontDoor. Defaults to false: AWS_IAM, so only
	// callers with lambda:InvokeFunctionUrl on the function, signing with
	// SigV4, get through.
	FrontDoorPublic bool
	// FrontDoorScope says whose key is it behind the AWS_IAM URL:
	// frontDoorScopeRole, each IAM principal's keys are its own, every
	// session of a role sharing them; "session", each role
	// session's keys are its own (IDEMQ_FRONTDOOR_SCOPE=iam-session), for
	// users who share a role under session names of their own (IAM
	// Identity Center names a session by its user). Only with FrontDoor,
	// not with FrontDoorPublic. Defaults to "": "role".
	FrontDoorScope string
	// AlarmActions are what every alarm (Worker.Alarms) does when it goes
	// off: an awscloudwatchactions.NewSnsAction of a topic that pages
	// someone, say. Defaults to none: the alarms only show on the
	// dashboard.
	AlarmActions []awscloudwatch.IAlarmAction

	// Replicas are the regions of the record table's replicas, besides
	// the stack's, which makes it a TableV2 with multi-Region strong
	// consistency (MRSC): 2 regions, or 1 with WitnessRegion, all in the
	// stack's region set (US, EU or AP). The stack needs an explicit
	// region. Claims then hold across regions: a claim's conditional
	// write is evaluated against every region's latest write, and a write
	// that conflicts with another region's fails rather than both
	// winning. Eventually consistent replicas are never made, and one
	// added to the table later (TableV2.AddReplica) fails the synth. Not
	// with KeepV020. Defaults to none: the table lives in the stack's
	// region alone.
	Replicas []string
	// WitnessRegion is the MRSC table's witness region, with one replica
	// in Replicas. Defaults to "": none.
	WitnessRegion string
	// KeepV020 keeps the resources v0.2.0's Worker deployed as they are,
	// for a stack that deployed it: the record table as a TableV2
	// (AWS::DynamoDB::GlobalTable, in the stack's region alone) rather
	// than an awsdynamodb.Table, and the redrive managed policy
	// (Worker.RedrivePolicy). Without it, CloudFormation refuses to update
	// such a stack ("Update of resource type is not permitted") and
	// changes nothing: a new table would forget every record, and every
	// request in flight would run again. Defaults to false.
	KeepV020 bool

	// Environment holds further variables for the function. A name that
	// starts with envPrefix ("IDEMQ_") is rejected: the Worker sets the
	// worker's variables itself, from these props once checked, and one
	// given here (IDEMQ_LEASE, say) would bypass the checks; and
	// envProviderAPIKey would hold the key in plain text in the function's
	// configuration. Defaults to none.
	Environment map[string]string
}

// Tracing says how a Worker's functions are traced (WorkerProps.Tracing;
// docs/tracing.md).
type Tracing string

// The ways a Worker's functions can be traced.
const (
	// TracingOff traces nothing: no layer, no envTracing, no X-Ray grant.
	TracingOff Tracing = "off"
	// TracingOTel has the worker send OpenTelemetry spans to the collector
	// of the layer WorkerProps.TracingLayerArn, which exports them to X-Ray
	// by default.
	TracingOTel Tracing = "otel"
	// TracingXRay is TracingOTel, and the function's active tracing: Lambda
	// samples invocations and records its own segment, and each batch's
	// span continues the invocation's X-Ray trace.
	TracingXRay Tracing = "xray"
)

// Pollers runs the SQS event source in provisioned mode: Lambda keeps at
// least Minimum event pollers reading the queue and scales up to Maximum,
// each handling about 5 MB/s, for steady high throughput and bursts
// without the on-demand ramp-up. Provisioned mode cannot be combined with a
// maximum concurrency (ScalingConfig.MaximumConcurrency): with Pollers set,
// WorkerProps.MaxConcurrency must be 0 or NoMaxConcurrency. More pollers
// mean more invocations at once, and more of them claiming the same hot
// keys: the claims decide, duplicates come back in progress (backed off)
// or replay.
type Pollers struct {
	// Minimum is the pollers kept running, 2 to 200. Defaults to
	// defaultMinPollers.
	Minimum int
	// Maximum is the most pollers Lambda scales up to, 2 to 2000, at
	// least Minimum. Defaults to defaultMaxPollers.
	Maximum int
}

// CapacityProvider runs the function on Lambda Managed Instances: EC2
// instances Lambda manages in your VPC, each execution environment running
// several invocations at once (the worker reads how many from
// AWS_LAMBDA_MAX_CONCURRENCY, which Lambda sets from MaxConcurrency, and
// sizes its connection pools for that many batches). The stack makes the
// capacity provider, for the function's architecture, in the subnets and
// security groups given.
type CapacityProvider struct {
	// SubnetIDs are the subnets the instances run in (subnet-...), 1 to
	// 16, with a route to DynamoDB, SQS, S3 and the model provider (NAT
	// or VPC endpoints). Required.
	SubnetIDs []string
	// SecurityGroupIDs are the instances' security groups (sg-...), 1 to
	// 5, allowing that egress. Required.
	SecurityGroupIDs []string
	// MaxConcurrency is the invocations one execution environment runs
	// at once (PerExecutionEnvironmentMaxConcurrency), 1 to 1600. Defaults
	// to 10.
	MaxConcurrency int
	// MemoryGiBPerVCpu is the execution environment's memory per vCPU:
	// 2, 4 or 8. Defaults to 2.
	MemoryGiBPerVCpu int
}
