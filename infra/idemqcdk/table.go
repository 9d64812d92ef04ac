package idemqcdk

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/queue"
)

// The record table's attributes the table itself must know: the names
// idem/dynamostore uses by default (Powertools' names).
const (
	// keyAttribute is the partition key, a string.
	keyAttribute = "id"
	// expiryAttribute is the TTL attribute, in epoch seconds.
	expiryAttribute = "expiration"
)

// RecordTableProps configures a RecordTable.
type RecordTableProps struct {
	// Queue is the queue whose messages the records answer. Its retention,
	// visibility timeout, redrive policy and dead-letter queue's retention
	// size the record expiry: read from it when it is defined in this app
	// (an awssqs.Queue), from QueueSettings when it is imported. Required.
	Queue awssqs.IQueue
	// QueueSettings are Queue's settings CDK cannot read from an imported
	// queue. Defaults to none: Queue must then be defined in this app.
	QueueSettings *QueueSettings
	// Timeout is the timeout of the function the queue feeds: the
	// visibility timeout must be at least as long (queue.RecordLifetime
	// refuses it otherwise). Pass the function's Timeout(). Required.
	Timeout awscdk.Duration
	// MaxBatchingWindow is the event source's batching window, which
	// lengthens each receive. Defaults to none.
	MaxBatchingWindow awscdk.Duration
	// RecordExpiry is how long a record lives: at least the queue's
	// message lifetime, or synth fails; shorter than a redrive from the
	// dead-letter queue needs, it deploys with a warning. Defaults to
	// queue.RecordLifetime of the queue's settings, the dead-letter
	// queue's retention included.
	RecordExpiry awscdk.Duration
	// Replicas, WitnessRegion and KeepV020 choose the table's kind, as
	// AttachmentProps' fields of the same names do. Default to none and
	// false: an awsdynamodb.Table in the stack's region.
	Replicas      *[]*string
	WitnessRegion *string
	KeepV020      *bool
}

// RecordTable is the table of idempotency records (partition key
// keyAttribute, TTL on expiryAttribute, on-demand, point-in-time recovery,
// deletion protection, kept when the stack is deleted), with the record
// expiry sized for its queue. Give the function RecordExpiry with the
// table's name (an Attachment does).
type RecordTable struct {
	// Table is the table: an awsdynamodb.Table, or with replicas or
	// KeepV020 an awsdynamodb.TableV2 (see the package documentation).
	Table awsdynamodb.ITable
	// RecordExpiry is how long a record must live for the queue.
	RecordExpiry time.Duration
	// Settings are the queue's settings it was sized from, the batching
	// window and the dead-letter queue's retention included.
	Settings queue.Settings
	// DeadLetterQueue is the queue's dead-letter queue.
	DeadLetterQueue awssqs.IQueue
}

// NewRecordTable adds a RecordTable to scope, as the construct id. A
// queue setting that cannot be read or cannot be safe
// (queue.RecordLifetime's refusals: a visibility timeout shorter than the
// timeout, max receives under queue.MinSafeMaxReceives), or a table kind
// that cannot be deployed, fails the synth with an error naming the
// setting; RecordExpiry is then 0. It panics if props or props.Queue is
// nil.
func NewRecordTable(scope constructs.Construct, id *string, props *RecordTableProps) *RecordTable {
	const prefix = "RecordTableProps."
	if props == nil || props.Queue == nil {
		panic("idemqcdk: " + prefix + "Queue is nil: give the queue whose messages the records answer")
	}
	w := &WorkerProps{Replicas: derefAll(props.Replicas), WitnessRegion: deref(props.WitnessRegion), KeepV020: deref(props.KeepV020)}
	s := settings{}
	label := func(field string) string { return prefix + field }
	err := s.resolveTable(w, label)
	if err == nil {
		err = checkRegions(awscdk.Stack_Of(scope), s, label)
	}
	var refused []error
	if err != nil {
		refused = append(refused, err)
		s = settings{}
	}
	t := &RecordTable{Table: newRecordTable(scope, *id, s)}
	src, err := readQueue(props.Queue, props.QueueSettings, prefix)
	if err == nil {
		label = src.label(prefix)
		err = t.size(src, props, label)
	}
	if err != nil {
		refused = append(refused, err)
	}
	for _, err := range refused {
		refuse(t.Table, err)
	}
	return t
}

// size sets t's record expiry from the queue's settings in src and props'
// timeout, window and expiry, warning on t's table as resolveExpiry says.
func (t *RecordTable) size(src *source, props *RecordTableProps, label func(field string) string) error {
	const prefix = "RecordTableProps."
	if props.Timeout == nil {
		return &SettingError{Field: "Timeout", Msg: prefix + "Timeout is nil: give the function's timeout (its Timeout())"}
	}
	s := src.settings
	var err error
	if s.timeout, err = duration(props.Timeout, prefix+"Timeout"); err != nil {
		return &SettingError{Field: "Timeout", Msg: err.Error()}
	}
	if s.window, err = duration(props.MaxBatchingWindow, prefix+"MaxBatchingWindow"); err != nil {
		return &SettingError{Field: "BatchingWindow", Msg: err.Error()}
	}
	expiry, err := duration(props.RecordExpiry, prefix+"RecordExpiry")
	if err != nil {
		return &SettingError{Field: "RecordExpiry", Msg: err.Error()}
	}
	if err := s.resolveExpiry(expiry, label); err != nil {
		return err
	}
	t.RecordExpiry, t.Settings, t.DeadLetterQueue = s.expiry, s.queue(), src.dlq
	warn(t.Table, s.warnings)
	return nil
}

// tableProps are what every record table is: partition key "id",
// a string; on-demand; TTL on "expiration"; point-in-time recovery;
// deletion protection; kept when the stack is deleted.
var (
	recordKey = &awsdynamodb.Attribute{Name: jsii.String(keyAttribute), Type: awsdynamodb.AttributeType_STRING}
	recovery  = &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)}
)

// newRecordTable is the record table, as id in scope, of the kind s says
// (resolveTable): a TableV2 with multi-Region strong consistency when s
// has replicas; v0.2.0's TableV2 in the stack's region alone with
// s.keepV020; an awsdynamodb.Table otherwise. Each is tableProps. All
// three render their table as the construct path id/Resource, so the
// table keeps its logical id whatever its kind: CloudFormation then
// refuses a change of kind ("Update of resource type is not permitted")
// before it changes anything, rather than replacing the table.
func newRecordTable(scope constructs.Construct, id string, s settings) awsdynamodb.ITable {
	if len(s.replicas) == 0 && !s.keepV020 {
		return awsdynamodb.NewTable(scope, jsii.String(id), &awsdynamodb.TableProps{
			PartitionKey:                     recordKey,
			BillingMode:                      awsdynamodb.BillingMode_PAY_PER_REQUEST,
			TimeToLiveAttribute:              jsii.String(expiryAttribute),
			PointInTimeRecoverySpecification: recovery,
			DeletionProtection:               jsii.Bool(true),
			RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		})
	}
	props := &awsdynamodb.TablePropsV2{
		PartitionKey:                     recordKey,
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		TimeToLiveAttribute:              jsii.String(expiryAttribute),
		PointInTimeRecoverySpecification: recovery,
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
	}
	if len(s.replicas) > 0 {
		// An MRSC table keeps no TTL (DynamoDB developer guide, How
		// global tables work): expired records stay until deleted (a
		// claim takes them over all the same; idemq purge removes them),
		// and the worker is told (envDynamoDBStrong), as CheckTable is.
		props.TimeToLiveAttribute = nil
		props.MultiRegionConsistency = awsdynamodb.MultiRegionConsistency_STRONG
		var replicas []*awsdynamodb.ReplicaTableProps
		for _, r := range s.replicas {
			replicas = append(replicas, &awsdynamodb.ReplicaTableProps{Region: jsii.String(r)})
		}
		props.Replicas = &replicas
		if s.witness != "" {
			props.WitnessRegion = jsii.String(s.witness)
		}
	}
	return awsdynamodb.NewTableV2(scope, jsii.String(id), props)
}

// derefSlice is *p, or nil.
func derefSlice[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}

// derefAll is the strings of p, or nil.
func derefAll(p *[]*string) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range *p {
		out = append(out, deref(s))
	}
	return out
}
