package idemqcdk

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// AttachmentProps configures an Attachment: which function and queue, and
// the handler's and the event source's settings. The queue's and the
// function's own settings are read from them.
type AttachmentProps struct {
	// Function is the function the queue is to feed, whose handler is
	// idemq's (handler.WrapSQS, configured by the environment the
	// Attachment gives it): an awslambda.Function defined in this app, or
	// an Alias or Version of one (the event source then invokes the alias
	// or version). Its Timeout is checked against the queue. Required.
	Function awslambda.IFunction
	// Queue is the queue feeding Function. It needs a dead-letter queue.
	// Its settings are read from it when it is defined in this app, from
	// QueueSettings when it is imported. Required.
	Queue awssqs.IQueue
	// QueueSettings are Queue's settings CDK cannot read from an imported
	// queue. Defaults to none.
	QueueSettings *QueueSettings
	// Request says who a request is, as WorkerProps.Request does: its
	// key namespace (required, a plain string that never changes), where
	// its key comes from (defaults to the body's "idempotency_key") and
	// which members are its fingerprint, given to the function in its
	// IDEMQ_* variables (idemqenv) and read back by worker.FromEnv.
	// Required.
	Request *request.Identity
	// BatchSize is the most messages one invocation receives: 1 to 10 on
	// a FIFO queue; 1 to 10,000 on a standard queue, where more than 10
	// needs a MaxBatchingWindow of at least 1 s. Defaults to 10.
	BatchSize *float64
	// MaxBatchingWindow is how long the event source gathers messages
	// before invoking the function, whole seconds, 0 to 300 s; FIFO
	// queues take none. Defaults to none.
	MaxBatchingWindow awscdk.Duration
	// MaxConcurrency caps the invocations the event source runs at once,
	// 2 to 1000, or NoMaxConcurrency for no cap but the account's.
	// Defaults to DefaultMaxConcurrency.
	MaxConcurrency *float64
	// Pollers, when set, runs the event source in provisioned mode (see
	// Pollers); MaxConcurrency must then be unset or NoMaxConcurrency.
	// Defaults to nil: on-demand polling.
	Pollers *Pollers
	// RecordExpiry is how long a record lives: at least the queue's
	// message lifetime, or the Attachment is refused; shorter than a
	// redrive from the dead-letter queue needs, it deploys with a warning.
	// Defaults to queue.RecordLifetime of the queue's settings, the
	// dead-letter queue's retention included.
	RecordExpiry awscdk.Duration
	// DisableBackoff turns off the handler's in-progress back-off
	// (IDEMQ_BACKOFF "false") and its grant, sqs:ChangeMessageVisibility
	// on the queue. Defaults to false: back-off on, a message found in
	// progress comes back when the other worker's lease ends.
	DisableBackoff *bool
	// DisableResultBucket leaves out the bucket of results too large for
	// a record (ResultBucket). With it (the default), the function is
	// given IDEMQ_BLOB_BUCKET and IDEMQ_BLOB_PREFIX and may put and get
	// the objects under the prefix. Defaults to false (bucket on).
	DisableResultBucket *bool
	// ResultExpiryDays is how many days the bucket keeps a result (see
	// ResultBucketProps.ExpiryDays). Only with the bucket. Defaults to the
	// record expiry rounded up to whole days, plus one.
	ResultExpiryDays *float64
	// ResultPrefix is the results' key prefix in the bucket (see
	// ResultBucketProps.Prefix). Only with the bucket. Defaults to
	// DefaultBlobPrefix.
	ResultPrefix *string
}

// Attachment attaches idemq to a function and the queue feeding it, both
// the user's own: a record table sized from the queue (RecordTable), a
// result bucket (ResultBucket), the function's grants (the record table's
// dynamodb:PutItem, UpdateItem and DeleteItem; polling the queue,
// sqs:ReceiveMessage, DeleteMessage and GetQueueAttributes, with
// ChangeMessageVisibility for the back-off; s3:PutObject and GetObject
// under the bucket's prefix; kms:Decrypt on the queue's key when CDK knows
// one), the handler's environment (EnvTable, EnvRecordExpiry, EnvQueue,
// the Request's variables (EnvNamespace, EnvKeyField, …), EnvBackoff, EnvEMFNamespace, EnvBlobBucket,
// EnvBlobPrefix), the event source mapping with ReportBatchItemFailures,
// the seven Alarms, a dashboard (NewDashboard) and a redrive policy
// (NewRedrivePolicy). The queue's settings are checked against the
// function's timeout at synth, as a Worker's are (CheckQueue).
type Attachment struct {
	// Construct is the scope holding the parts.
	Construct constructs.Construct
	// Table holds the idempotency records.
	Table awsdynamodb.TableV2
	// RecordExpiry is the record expiry given to the function.
	RecordExpiry time.Duration
	// Settings are the queue's settings, with the batching window and the
	// dead-letter queue's retention, that sized RecordExpiry.
	Settings queue.Settings
	// DeadLetterQueue is the queue's dead-letter queue.
	DeadLetterQueue awssqs.IQueue
	// Bucket keeps results too large for a record; nil with
	// AttachmentProps.DisableResultBucket.
	Bucket *ResultBucket
	// EventSource feeds the function from the queue.
	EventSource awslambda.EventSourceMapping
	// Alarms have no action: add yours (Alarms.All).
	Alarms *Alarms
	// Dashboard shows the alarms, the handler's counts, the queues and the
	// function (docs/operate.md).
	Dashboard awscloudwatch.Dashboard
	// RedrivePolicy is a managed policy, attached to nothing, allowing
	// exactly a redrive of the dead-letter queue into the queue.
	RedrivePolicy awsiam.ManagedPolicy
	// Environment are the variables given to the function.
	Environment map[string]*string
}

// attachmentFields name WorkerProps' fields as AttachmentProps does.
var attachmentFields = map[string]string{
	"BatchingWindow": "MaxBatchingWindow",
	"DisableBlobs":   "DisableResultBucket",
	"BlobExpiryDays": "ResultExpiryDays",
	"BlobPrefix":     "ResultPrefix",
}

// NewAttachment attaches idemq to props.Function and props.Queue, adding
// the parts to scope in a construct of the id given (see Attachment). It
// panics with a *SettingError naming the setting if one cannot be read or
// cannot be safe: a visibility timeout shorter than the function's
// timeout, max receives too few for a retry, a queue without a
// dead-letter queue, a setting given for a queue defined in the app that
// differs from the queue's own, an imported queue's setting missing.
func NewAttachment(scope constructs.Construct, id *string, props *AttachmentProps) *Attachment {
	const prefix = "AttachmentProps."
	if props == nil {
		panic(&SettingError{Field: "Function", Msg: prefix + "Function and Queue are nil: give the function and the queue that feeds it"})
	}
	src, err := readQueue(props.Queue, props.QueueSettings, prefix)
	if err != nil {
		panic(err)
	}
	fn, err := src.readFunction(props.Function, prefix)
	if err != nil {
		panic(err)
	}
	props.resolveInto(src, prefix)
	s := src.settings

	c := constructs.NewConstruct(scope, id)
	warn(c, s.warnings)
	a := &Attachment{Construct: c, RecordExpiry: s.expiry, Settings: s.queue(), DeadLetterQueue: src.dlq}
	a.Table = newTable(c, "Table")
	if s.blobs {
		a.Bucket = &ResultBucket{Bucket: newBucket(c, "Bucket", s.blobPrefix, s.blobDays), Prefix: s.blobPrefix, ExpiryDays: s.blobDays}
	}
	a.Environment = handlerEnv(a.Table, a.Bucket, s)
	for _, k := range slices.Sorted(maps.Keys(a.Environment)) {
		fn.AddEnvironment(jsii.String(k), a.Environment[k], nil)
	}
	allow(props.Function, a.Table, props.Queue, s.backoff)
	if a.Bucket != nil {
		a.Bucket.GrantResults(props.Function)
	}
	if key := props.Queue.EncryptionMasterKey(); key != nil {
		key.GrantDecrypt(props.Function)
	}
	a.EventSource = newEventSource(c, props.Function, props.Queue, s)
	// The event source polls with the role's permissions: create it only
	// once its policy exists.
	if role := props.Function.Role(); role != nil {
		a.EventSource.Node().AddDependency(role)
	}
	watched := parts{queue: props.Queue, dlq: src.dlq, fn: props.Function, namespace: s.request.Namespace, s: s}
	a.Alarms = addAlarms(c, watched)
	a.RedrivePolicy = newRedrivePolicy(c, "RedrivePolicy", src.dlq, props.Queue)
	a.Dashboard = newDashboard(c, "Dashboard", watched, a.Alarms.All())
	return a
}

// resolveInto checks p's settings with the queue's and the function's in
// src (WorkerProps' checks, messages naming AttachmentProps' fields and
// the queue's and the function's settings), leaving the result in
// src.settings; it panics with the *SettingError of the first one that
// cannot be deployed.
func (p *AttachmentProps) resolveInto(src *source, prefix string) {
	bad := func(field, format string, args ...any) {
		panic(&SettingError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	whole := func(field string, v *float64) int {
		if v == nil {
			return 0
		}
		n := int(*v)
		if float64(n) != *v || n == 0 {
			bad(field, "%s%s %v must be a whole number, not 0", prefix, field, *v)
		}
		return n
	}
	w := &WorkerProps{
		Request:        deref(p.Request),
		BatchSize:      whole("BatchSize", p.BatchSize),
		MaxConcurrency: whole("MaxConcurrency", p.MaxConcurrency),
		BlobExpiryDays: whole("ResultExpiryDays", p.ResultExpiryDays),
		BlobPrefix:     deref(p.ResultPrefix),
		Pollers:        p.Pollers,
		DisableBackoff: p.DisableBackoff != nil && *p.DisableBackoff,
		DisableBlobs:   p.DisableResultBucket != nil && *p.DisableResultBucket,
	}
	if p.Request == nil {
		bad("Request.Namespace", "%sRequest is nil: give at least its Namespace, which prefixes every idempotency key and must never change", prefix)
	}
	if p.ResultPrefix != nil && *p.ResultPrefix == "" {
		panic(checkBlobPrefix("", func(string) string { return prefix + "ResultPrefix" }))
	}
	var err error
	s := src.settings
	if s.window, err = duration(p.MaxBatchingWindow, prefix+"MaxBatchingWindow"); err != nil {
		bad("BatchingWindow", "%v", err)
	}
	if w.RecordExpiry, err = duration(p.RecordExpiry, prefix+"RecordExpiry"); err != nil {
		bad("RecordExpiry", "%v", err)
	}
	names := src.label(prefix)
	label := func(field string) string {
		if f, ok := attachmentFields[field]; ok {
			return prefix + f
		}
		return names(field)
	}
	if src.settings, err = w.resolveWith(s, label); err != nil {
		panic(err)
	}
}
