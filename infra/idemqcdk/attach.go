package idemqcdk

import (
	"fmt"
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
// function's own settings are read from them, and the event source's
// from the event source mapping the app already has from the queue to the
// function, if any.
type AttachmentProps struct {
	// Function is the function the queue is to feed, whose handler is
	// idemq's (handler.New, configured by the environment the
	// Attachment gives it): an awslambda.Function defined in this app, or
	// an Alias or Version of one (the event source then invokes the alias
	// or version). Its Timeout is checked against the queue. Required.
	Function awslambda.IFunction
	// Queue is the queue feeding Function. It needs a dead-letter queue.
	// Its settings are read from it when it is defined in this app, from
	// QueueSettings when it is imported. Required, unless Stream is given.
	Queue awssqs.IQueue
	// Stream is the Kinesis stream or table's stream feeding Function, in
	// place of Queue (see StreamSource); QueueSettings, MaxConcurrency,
	// Pollers, DisableBackoff and KeepV020 then do not apply. BatchSize
	// is then 1 to 10,000 (Lambda's default 100). Defaults to nil: a queue.
	Stream *StreamSource
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
	// needs a MaxBatchingWindow of at least 1 s. Defaults to the app's
	// own event source mapping's, else Lambda's (10), left unset.
	BatchSize *float64
	// MaxBatchingWindow is how long the event source gathers messages
	// before invoking the function, whole seconds, 0 to 300 s; FIFO
	// queues take none. Defaults to the app's own event source mapping's,
	// else none.
	MaxBatchingWindow awscdk.Duration
	// MaxConcurrency caps the invocations the event source runs at once,
	// 2 to 1000, or NoMaxConcurrency for no cap but the account's (it
	// removes the app's own mapping's cap). Defaults to the app's own
	// event source mapping's cap, else none.
	MaxConcurrency *float64
	// Pollers, when set, runs the event source in provisioned mode (see
	// Pollers); MaxConcurrency must then be unset or NoMaxConcurrency.
	// Defaults to the app's own event source mapping's, else nil:
	// on-demand polling.
	Pollers *Pollers
	// RecordExpiry is how long a record lives: at least the queue's
	// message lifetime, or synth fails; shorter than a redrive from the
	// dead-letter queue needs, it deploys with a warning. Defaults to
	// queue.RecordLifetime of the queue's settings, the dead-letter
	// queue's retention included. For a Stream, the same with
	// queue.Stream's Lifetime, and a redrive from the on-failure queue.
	RecordExpiry awscdk.Duration
	// DisableBackoff turns off the handler's in-progress back-off
	// (IDEMQ_BACKOFF "false") and its grant, sqs:ChangeMessageVisibility
	// on the queue. Defaults to false: back-off on, a message found in
	// progress comes back when the other worker's lease ends.
	DisableBackoff *bool
	// ResultBucket adds the bucket of results too large for a record
	// (ResultBucket): the function is given IDEMQ_BLOB_BUCKET and
	// IDEMQ_BLOB_PREFIX and may put and get the objects under the prefix,
	// so a result over idem.DefaultOffloadAbove bytes (after compression)
	// is kept there and replayed whole. Defaults to false: no bucket; a
	// result too large for its record (400 KB) completes its key without
	// the result (idem.ErrResultTooLarge), and a duplicate is acknowledged
	// with none.
	ResultBucket *bool
	// ResultExpiryDays is how many days the bucket keeps a result: at
	// least the record expiry in whole days, or synth fails; under a day
	// more, it deploys with a warning. Only with ResultBucket. Defaults to
	// the record expiry rounded up to whole days, plus one.
	ResultExpiryDays *float64
	// ResultPrefix is the results' key prefix in the bucket, given to the
	// function as envBlobPrefix: non-empty, at most 512 bytes of letters,
	// digits and !-_.'() in segments each ending in '/'. Only with
	// ResultBucket. Defaults to defaultBlobPrefix.
	ResultPrefix *string
	// AlarmActions are what every alarm does when it goes off: an
	// awscloudwatchactions.NewSnsAction of a topic that pages someone,
	// say. Defaults to none: the alarms only show on the dashboard.
	AlarmActions *[]awscloudwatch.IAlarmAction
	// Replicas are the regions of the record table's replicas, besides
	// the stack's: the table is then a TableV2 with multi-Region strong
	// consistency, as WorkerProps.Replicas says. Defaults to none.
	Replicas *[]*string
	// WitnessRegion is that table's witness region, with one replica.
	// Defaults to none.
	WitnessRegion *string
	// KeepV020 keeps what v0.2.0's Attachment deployed, for an app that
	// deployed it: the record table as a TableV2 in the stack's region
	// alone (AWS::DynamoDB::GlobalTable), the event source mapping where
	// v0.2.0 put it (the construct QueueSource in the Attachment), and the
	// redrive managed policy (RedrivePolicy). Without it, CloudFormation
	// refuses the update ("Update of resource type is not permitted") and
	// changes nothing. Defaults to false.
	KeepV020 *bool
}

// Attachment attaches idemq to a function and the queue feeding it (or
// the stream: see StreamSource for what differs), both the app's own: a record table sized from the queue (Table), the
// function's grants (the record table's dynamodb:PutItem, UpdateItem and
// DeleteItem; polling the queue, sqs:ReceiveMessage, DeleteMessage and
// GetQueueAttributes, with ChangeMessageVisibility for the back-off;
// kms:Decrypt on the queue's key when CDK knows one), the handler's
// environment (envTable, envRecordExpiry, envQueue, the Request's
// variables (envNamespace, envKeyField, …), envBackoff, envEMFNamespace),
// the event source mapping with ReportBatchItemFailures, the seven Alarms
// and a dashboard (Dashboard); with ResultBucket, a result bucket
// (ResultBucket, with s3:PutObject and GetObject under its prefix,
// envBlobBucket and envBlobPrefix).
//
// The event source mapping is the app's own when it has one from the queue
// to the function (made before NewAttachment, by
// fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(queue, …)) or
// awslambda.NewEventSourceMapping): the Attachment takes it over, turning
// on ReportBatchItemFailures and changing only the batching settings it
// is given, so the deploy updates it in place. Otherwise it makes one
// under the construct path SqsEventSource would have used
// (fn.AddEventSourceMapping with its id), so an app that swaps its
// AddEventSource line for the Attachment keeps the mapping's logical id,
// and the deploy again updates it in place.
//
// The queue's settings are checked against the function's timeout at
// synth, as a Worker's are (CheckQueue); at synth, once the app's code has
// run, the stack is checked too (two mappings from one queue to one
// function, a mapping to the function without ReportBatchItemFailures,
// replicas of the table without strong consistency). A refusal fails the
// synth with an error on the Attachment's construct, naming the setting
// to change.
type Attachment struct {
	// Construct is the scope holding the parts.
	Construct constructs.Construct
	// Table holds the idempotency records: an awsdynamodb.Table, or an
	// awsdynamodb.TableV2 with Replicas or KeepV020.
	Table awsdynamodb.ITable
	// RecordExpiry is the record expiry given to the function; 0 when a
	// setting was refused.
	RecordExpiry time.Duration
	// Settings are the queue's settings, with the batching window and the
	// dead-letter queue's retention, that sized RecordExpiry.
	Settings queue.Settings
	// DeadLetterQueue is the queue's dead-letter queue; for a stream, its
	// on-failure queue (nil with a topic).
	DeadLetterQueue awssqs.IQueue
	// Bucket keeps results too large for a record; nil without
	// AttachmentProps.ResultBucket.
	Bucket *ResultBucket
	// EventSource feeds the function from the queue: the app's own
	// mapping, taken over, or the Attachment's.
	EventSource awslambda.EventSourceMapping
	// Alarms notify AttachmentProps.AlarmActions.
	Alarms *Alarms
	// Dashboard shows the alarms, the handler's counts, the queues (a
	// stream's iterator age and on-failure notices) and the function
	// (docs/operate.md).
	Dashboard awscloudwatch.Dashboard
	// Stream are the stream's settings that sized RecordExpiry, with
	// AttachmentProps.Stream (Settings is then zero).
	Stream queue.Stream
	// RedrivePolicy is v0.2.0's managed policy allowing a redrive of the
	// dead-letter queue into the queue, attached to nothing; only with
	// KeepV020 (otherwise nil: see GrantRedrive).
	RedrivePolicy awsiam.ManagedPolicy
	// Environment are the variables given to the function.
	Environment map[string]*string

	queue awssqs.IQueue
}

// GrantRedrive lets grantee (an operator's role or user) redrive the
// dead-letter queue into the queue and nothing else
// (sqs:StartMessageMoveTask and what it needs; see grantRedrive). It
// panics for a stream, whose records are re-driven by reading them back
// from the stream.
func (a *Attachment) GrantRedrive(grantee awsiam.IGrantable) {
	if a.queue == nil {
		panic("idemqcdk: GrantRedrive on a stream's Attachment: its on-failure notices name records to read back from the stream, not messages to move")
	}
	grantRedrive(grantee, a.DeadLetterQueue, a.queue)
}

// attachmentFields name WorkerProps' fields as AttachmentProps does.
var attachmentFields = map[string]string{
	"BatchingWindow": "MaxBatchingWindow",
	"DisableBlobs":   "ResultBucket",
	"BlobExpiryDays": "ResultExpiryDays",
	"BlobPrefix":     "ResultPrefix",
}

// resolve checks p's settings with the queue's and the function's in src
// and the app's own mapping's (own; given by p, given says which), as a
// Worker's are checked (WorkerProps.resolveWith), messages naming
// AttachmentProps' fields and the queue's and the function's settings.
func (p *AttachmentProps) resolve(src *source, own mappingSettings, prefix string) (settings, mappingSettings, error) {
	var firstErr error
	bad := func(field, format string, args ...any) {
		if firstErr == nil {
			firstErr = &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
		}
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
	given := mappingSettings{batchSize: p.BatchSize, concurrency: p.MaxConcurrency, pollers: p.Pollers != nil}
	w := &WorkerProps{
		Request:        deref(p.Request),
		BatchSize:      whole("BatchSize", p.BatchSize),
		MaxConcurrency: whole("MaxConcurrency", p.MaxConcurrency),
		BlobExpiryDays: whole("ResultExpiryDays", p.ResultExpiryDays),
		BlobPrefix:     deref(p.ResultPrefix),
		Pollers:        p.Pollers,
		DisableBackoff: deref(p.DisableBackoff),
		DisableBlobs:   !deref(p.ResultBucket),
		Replicas:       derefAll(p.Replicas),
		WitnessRegion:  deref(p.WitnessRegion),
		KeepV020:       deref(p.KeepV020),
	}
	// Unset, the app's own mapping's settings are kept, and checked.
	if p.BatchSize == nil && own.batchSize != nil {
		w.BatchSize = int(*own.batchSize)
	}
	if p.MaxConcurrency == nil && own.concurrency != nil {
		w.MaxConcurrency = int(*own.concurrency)
	}
	if p.MaxConcurrency != nil && *p.MaxConcurrency != NoMaxConcurrency && p.Pollers == nil && own.pollers {
		bad("MaxConcurrency", "%sMaxConcurrency %v cannot be combined with the provisioned pollers of the app's own event source mapping, which Lambda refuses; unset it, or give Pollers",
			prefix, *p.MaxConcurrency)
	}
	switch {
	case p.Request == nil:
		bad("Request.Namespace", "%sRequest is nil: give at least its Namespace, which prefixes every idempotency key and must never change", prefix)
	case p.ResultPrefix != nil && *p.ResultPrefix == "":
		if err := checkBlobPrefix("", func(string) string { return prefix + "ResultPrefix" }); firstErr == nil {
			firstErr = err
		}
	}
	s := src.settings
	var err error
	if s.window, err = duration(p.MaxBatchingWindow, prefix+"MaxBatchingWindow"); err != nil {
		bad("BatchingWindow", "%v", err)
	}
	if p.MaxBatchingWindow != nil {
		given.window = jsii.Number(s.window.Seconds())
	} else if own.window != nil {
		s.window = time.Duration(*own.window) * time.Second
	}
	if w.RecordExpiry, err = duration(p.RecordExpiry, prefix+"RecordExpiry"); err != nil {
		bad("RecordExpiry", "%v", err)
	}
	if firstErr != nil {
		return s, given, firstErr
	}
	names := src.label(prefix)
	label := func(field string) string {
		switch {
		case field == "BatchSize" && p.BatchSize == nil && own.batchSize != nil,
			field == "BatchingWindow" && p.MaxBatchingWindow == nil && own.window != nil,
			field == "MaxConcurrency" && p.MaxConcurrency == nil && own.concurrency != nil:
			return "the app's event source mapping's " + map[string]string{
				"BatchSize": "BatchSize", "BatchingWindow": "MaximumBatchingWindowInSeconds", "MaxConcurrency": "ScalingConfig.MaximumConcurrency"}[field]
		}
		if f, ok := attachmentFields[field]; ok {
			return prefix + f
		}
		return names(field)
	}
	s, err = w.resolveWith(s, label)
	return s, given, err
}
