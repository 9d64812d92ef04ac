package idemqcdk

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Worker is an idemq worker: a queue with its dead-letter queue, the
// function the queue feeds, and the table of idempotency records. Its
// fields give access to the parts, e.g. to add an alarm action or a grant.
type Worker struct {
	// Construct is the scope holding the parts. (A Go struct embedding a
	// construct cannot itself be passed to the CDK as one.)
	Construct       constructs.Construct
	Table           awsdynamodb.TableV2
	Queue           awssqs.Queue
	DeadLetterQueue awssqs.Queue
	Function        awslambda.Function
	Role            awsiam.Role
	Logs            awslogs.LogGroup
	EventSource     awslambda.EventSourceMapping
	// The alarms, which have no action; NewStack gives each the SNS topic
	// of idemq:alarmTopicArn. See newAlarms.
	DeadLetterAlarm, DeadLetterExpiryAlarm, AgeAlarm, FailedAlarm, DurationAlarm, ErrorsAlarm, ThrottlesAlarm awscloudwatch.Alarm
	// Dashboard shows the alarms, the records by outcome, the records per
	// day by class and the provider calls avoided per day, the queues and
	// the function. See newDashboard and docs/operate.md.
	Dashboard awscloudwatch.Dashboard
	// RedrivePolicy is a managed policy, attached to nothing, allowing
	// exactly a redrive of the dead-letter queue into the queue
	// (sqs:StartMessageMoveTask and what it needs): attach it to the
	// operator's role or user. See newRedrivePolicy.
	RedrivePolicy awsiam.ManagedPolicy
	// Bucket keeps results too large for a record, under BlobPrefix, for
	// BlobExpiryDays; nil with WorkerProps.DisableBlobs. See newBucket.
	Bucket awss3.Bucket
	// BlobExpiryDays is how many days Bucket keeps a result:
	// WorkerProps.BlobExpiryDays, by default the record expiry rounded up
	// to whole days, and one more. 0 without Bucket.
	BlobExpiryDays int
	// BlobPrefix is the key prefix of the results in Bucket
	// (WorkerProps.BlobPrefix, by default DefaultBlobPrefix). "" without
	// Bucket.
	BlobPrefix string
	// RecordExpiry is the record expiry given to the function.
	RecordExpiry time.Duration
	// FrontDoor is the HTTP front door; nil without WorkerProps.FrontDoor.
	FrontDoor *FrontDoor
}

// NewWorker adds a Worker to scope. It panics if props.Code is nil or a
// setting cannot be deployed (the *SettingError WorkerProps.Check returns).
func NewWorker(scope constructs.Construct, id string, props *WorkerProps) *Worker {
	if props == nil || props.Code == nil {
		panic("idemqcdk: WorkerProps.Code is nil; use GoCode or awslambda.Code_FromAsset")
	}
	s, err := props.resolve(fieldName)
	if err != nil {
		panic(err)
	}
	return newWorker(scope, id, props, s)
}

func newWorker(scope constructs.Construct, id string, p *WorkerProps, s settings) *Worker {
	c := constructs.NewConstruct(scope, jsii.String(id))
	w := &Worker{Construct: c, RecordExpiry: s.expiry}
	for _, warning := range s.warnings {
		awscdk.Annotations_Of(c).AddWarningV2(jsii.String("idemq:settings"), jsii.String(warning), nil)
	}
	w.Table = newTable(c)
	w.Queue, w.DeadLetterQueue = newQueues(c, s)

	queueJSON, err := json.Marshal(s.queue())
	if err != nil { // unreachable: durations and numbers
		panic(err)
	}
	env := map[string]*string{
		EnvTable:        w.Table.TableName(),
		EnvRecordExpiry: jsii.String(s.expiry.String()),
		EnvQueue:        jsii.String(string(queueJSON)),
		EnvEMFNamespace: jsii.String(MetricNamespace),
	}
	env[EnvNamespace] = jsii.String(p.Namespace)
	env[EnvKeyField] = jsii.String(s.keyField)
	env[EnvBackoff] = jsii.String(strconv.FormatBool(s.backoff))
	if p.ProviderURL != "" {
		env[EnvProviderURL] = jsii.String(p.ProviderURL)
	}
	if p.ProviderAPIKeySecret != nil {
		env[EnvProviderAPIKeySecret] = secretID(p.ProviderAPIKeySecret)
	}
	if s.blobs {
		w.BlobExpiryDays, w.BlobPrefix = s.blobDays, s.blobPrefix
		w.Bucket = newBucket(c, s.blobPrefix, s.blobDays)
		env[EnvBlobBucket] = w.Bucket.BucketName()
		env[EnvBlobPrefix] = jsii.String(s.blobPrefix)
	}
	for k, v := range p.Environment {
		env[k] = jsii.String(v)
	}
	w.Function, w.Role, w.Logs = newFunction(c, p.Code, s, env)
	if s.capacity != nil {
		newCapacityProvider(c, w.Function, s)
	}
	allow(w.Role, w.Table, w.Queue, w.Logs, s.backoff)
	if w.Bucket != nil {
		allowBlobs(w.Role, w.Bucket, s.blobPrefix)
	}
	if p.ProviderAPIKeySecret != nil {
		allowSecret(w.Function, p.ProviderAPIKeySecret)
	}
	w.EventSource = newEventSource(w.Function, w.Queue, s)
	// The event source polls with the role's permissions: create it only
	// once its policy exists.
	w.EventSource.Node().AddDependency(w.Role)
	newAlarms(c, w, s, p.Namespace)
	w.RedrivePolicy = newRedrivePolicy(c, w.DeadLetterQueue, w.Queue)
	w.Dashboard = newDashboard(c, w, s, p.Namespace)
	if p.FrontDoor {
		w.FrontDoor = newFrontDoor(c, w, p, s)
	}
	return w
}

// Alarms are the Worker's alarms: dead letters, a dead letter's time left,
// the oldest message's age, failed records, an invocation near its
// timeout, function errors and throttles.
func (w *Worker) Alarms() []awscloudwatch.Alarm {
	return []awscloudwatch.Alarm{w.DeadLetterAlarm, w.DeadLetterExpiryAlarm, w.AgeAlarm, w.FailedAlarm, w.DurationAlarm, w.ErrorsAlarm, w.ThrottlesAlarm}
}
