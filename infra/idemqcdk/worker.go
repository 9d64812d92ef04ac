package idemqcdk

import (
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
	Construct constructs.Construct
	// Table holds the idempotency records: an awsdynamodb.Table, or an
	// awsdynamodb.TableV2 with WorkerProps.Replicas or KeepV020.
	Table           awsdynamodb.ITable
	Queue           awssqs.Queue
	DeadLetterQueue awssqs.Queue
	Function        awslambda.Function
	Role            awsiam.Role
	Logs            awslogs.LogGroup
	EventSource     awslambda.EventSourceMapping
	// The alarms, each doing WorkerProps.AlarmActions when it goes off
	// (NewStack: the SNS topic of idemq:alarmTopicArn). See Alarms.
	DeadLetterAlarm, DeadLetterExpiryAlarm, AgeAlarm, FailedAlarm, DurationAlarm, ErrorsAlarm, ThrottlesAlarm awscloudwatch.Alarm
	// Dashboard shows the alarms, the records by outcome, the records per
	// day by class and the provider calls avoided per day, the queues and
	// the function. See newDashboard and docs/operate.md.
	Dashboard awscloudwatch.Dashboard
	// RedrivePolicy is v0.2.0's managed policy, attached to nothing,
	// allowing exactly a redrive of the dead-letter queue into the queue
	// (sqs:StartMessageMoveTask and what it needs), for the operator's
	// role or user; only with WorkerProps.KeepV020 (otherwise nil: see
	// GrantRedrive).
	RedrivePolicy awsiam.ManagedPolicy
	// Bucket keeps results too large for a record, under BlobPrefix, for
	// BlobExpiryDays; nil with WorkerProps.DisableBlobs. See ResultBucket.
	Bucket awss3.Bucket
	// BlobExpiryDays is how many days Bucket keeps a result:
	// WorkerProps.BlobExpiryDays, by default the record expiry rounded up
	// to whole days, and one more. 0 without Bucket.
	BlobExpiryDays int
	// BlobPrefix is the key prefix of the results in Bucket
	// (WorkerProps.BlobPrefix, by default defaultBlobPrefix). "" without
	// Bucket.
	BlobPrefix string
	// RecordExpiry is the record expiry given to the function.
	RecordExpiry time.Duration
	// FrontDoor is the HTTP front door; nil without WorkerProps.FrontDoor.
	FrontDoor *FrontDoor
}

// NewWorker adds a Worker to scope, in a construct of the id given. A
// setting that cannot be deployed (the *SettingError WorkerProps.Check
// returns), or Code that is a folder holding a bootstrap built for another
// architecture than WorkerProps.Architecture, fails the synth with an
// error on the Worker's construct naming it; the parts are then made with
// the default settings, so that the Worker's fields can be used, and
// synth fails all the same. It panics if props or props.Code is nil.
func NewWorker(scope constructs.Construct, id *string, props *WorkerProps) *Worker {
	if props == nil || props.Code == nil {
		panic("idemqcdk: WorkerProps.Code is nil; use GoCode or awslambda.Code_FromAsset")
	}
	s, err := props.resolve(fieldName)
	if err == nil {
		err = checkCodeArch(props.Code, s.arch, fieldName)
	}
	if err == nil {
		err = checkRegions(awscdk.Stack_Of(scope), s, fieldName)
	}
	if err != nil {
		s = refusedSettings()
	}
	w := newWorker(scope, *id, props, s)
	if err != nil {
		refuse(w.Construct, err)
	}
	return w
}

// newWorker builds the Worker from the parts an Attachment uses too: the
// record table, the result bucket, the grants, the environment, the
// alarms, the dashboard and, with KeepV020, the redrive policy (each at
// the construct path it has always had, so that an update replaces none).
func newWorker(scope constructs.Construct, id string, p *WorkerProps, s settings) *Worker {
	c := constructs.NewConstruct(scope, jsii.String(id))
	w := &Worker{Construct: c, RecordExpiry: s.expiry}
	warn(c, s.warnings)
	w.Table = newRecordTable(c, "Table", s)
	w.Queue, w.DeadLetterQueue = newQueues(c, s)

	var bucket *ResultBucket
	if s.blobs {
		w.BlobExpiryDays, w.BlobPrefix = s.blobDays, s.blobPrefix
		w.Bucket = newBucket(c, "Bucket", s.blobPrefix, s.blobDays)
		bucket = &ResultBucket{Bucket: w.Bucket, Prefix: s.blobPrefix, ExpiryDays: s.blobDays}
	}
	env := handlerEnv(w.Table, bucket, s)
	if p.ProviderURL != "" {
		env[envProviderURL] = jsii.String(p.ProviderURL)
	}
	if p.ProviderAPIKeySecret != nil {
		env[envProviderAPIKeySecret] = secretID(p.ProviderAPIKeySecret)
	}
	for k, v := range p.Environment {
		env[k] = jsii.String(v)
	}
	w.Function, w.Role, w.Logs = newFunction(c, p.Code, s, env)
	if s.capacity != nil {
		newCapacityProvider(c, w.Function, s)
	}
	allow(w.Role, w.Table, w.Queue, s.backoff)
	allowLogs(w.Role, w.Logs)
	if bucket != nil {
		bucket.GrantResults(w.Role)
	}
	if p.ProviderAPIKeySecret != nil {
		allowSecret(w.Function, p.ProviderAPIKeySecret)
	}
	w.EventSource = newEventSource(w.Function, w.Queue, s)
	// The event source polls with the role's permissions: create it only
	// once its policy exists.
	w.EventSource.Node().AddDependency(w.Role)
	watched := parts{queue: w.Queue, dlq: w.DeadLetterQueue, fn: w.Function, namespace: s.request.Namespace, s: s}
	a := addAlarms(c, watched, p.AlarmActions)
	w.DeadLetterAlarm, w.DeadLetterExpiryAlarm, w.AgeAlarm, w.FailedAlarm, w.DurationAlarm, w.ErrorsAlarm, w.ThrottlesAlarm =
		a.DeadLetterAlarm, a.DeadLetterExpiryAlarm, a.AgeAlarm, a.FailedAlarm, a.DurationAlarm, a.ErrorsAlarm, a.ThrottlesAlarm
	if s.keepV020 {
		w.RedrivePolicy = newRedrivePolicy(c, "RedrivePolicy", w.DeadLetterQueue, w.Queue)
	}
	w.Dashboard = newDashboard(c, "Dashboard", watched, w.Alarms())
	if p.FrontDoor {
		w.FrontDoor = newFrontDoor(c, w.Queue, w.Table, bucket, p, s)
	}
	addChecks(c, &checks{functions: []awslambda.IFunction{w.Function}, table: w.Table})
	return w
}

// GrantRedrive lets grantee (an operator's role or user) redrive the
// dead-letter queue into the queue and nothing else
// (sqs:StartMessageMoveTask and what it needs; see grantRedrive).
func (w *Worker) GrantRedrive(grantee awsiam.IGrantable) {
	grantRedrive(grantee, w.DeadLetterQueue, w.Queue)
}

// Alarms are the Worker's alarms: dead letters, a dead letter's time left,
// the oldest message's age, failed records, an invocation near its
// timeout, function errors and throttles.
func (w *Worker) Alarms() []awscloudwatch.Alarm {
	return []awscloudwatch.Alarm{w.DeadLetterAlarm, w.DeadLetterExpiryAlarm, w.AgeAlarm, w.FailedAlarm, w.DurationAlarm, w.ErrorsAlarm, w.ThrottlesAlarm}
}
