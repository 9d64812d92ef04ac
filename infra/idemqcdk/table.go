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
	// KeyAttribute is the partition key, a string.
	KeyAttribute = "id"
	// ExpiryAttribute is the TTL attribute, in epoch seconds.
	ExpiryAttribute = "expiration"
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
	// message lifetime, or NewRecordTable panics; shorter than a redrive
	// from the dead-letter queue needs, it deploys with a warning.
	// Defaults to queue.RecordLifetime of the queue's settings, the
	// dead-letter queue's retention included.
	RecordExpiry awscdk.Duration
}

// RecordTable is the table of idempotency records (partition key
// KeyAttribute, TTL on ExpiryAttribute, on-demand, point-in-time recovery,
// deletion protection, kept when the stack is deleted), with the record
// expiry sized for its queue. Give the function RecordExpiry with the
// table's name (an Attachment does).
type RecordTable struct {
	// Table is the table: a TableV2 (see the package documentation).
	Table awsdynamodb.TableV2
	// RecordExpiry is how long a record must live for the queue.
	RecordExpiry time.Duration
	// Settings are the queue's settings it was sized from, the batching
	// window and the dead-letter queue's retention included.
	Settings queue.Settings
	// DeadLetterQueue is the queue's dead-letter queue.
	DeadLetterQueue awssqs.IQueue
}

// NewRecordTable adds a RecordTable to scope, as the construct id. It
// panics with a *SettingError if the queue's settings cannot be read or
// cannot be safe (queue.RecordLifetime's refusals: a visibility timeout
// shorter than the timeout, max receives under
// queue.MinSafeMaxReceives), naming the setting.
func NewRecordTable(scope constructs.Construct, id *string, props *RecordTableProps) *RecordTable {
	const prefix = "RecordTableProps."
	if props == nil {
		panic(&SettingError{Field: "Queue", Msg: prefix + "Queue is nil: give the queue whose messages the records answer"})
	}
	src, err := readQueue(props.Queue, props.QueueSettings, prefix)
	if err != nil {
		panic(err)
	}
	label := src.label(prefix)
	if props.Timeout == nil {
		panic(&SettingError{Field: "Timeout", Msg: prefix + "Timeout is nil: give the function's timeout (its Timeout())"})
	}
	s := src.settings
	var errs [3]error
	s.timeout, errs[0] = duration(props.Timeout, prefix+"Timeout")
	s.window, errs[1] = duration(props.MaxBatchingWindow, prefix+"MaxBatchingWindow")
	expiry, err2 := duration(props.RecordExpiry, prefix+"RecordExpiry")
	errs[2] = err2
	for i, field := range []string{"Timeout", "BatchingWindow", "RecordExpiry"} {
		if errs[i] != nil {
			panic(&SettingError{Field: field, Msg: errs[i].Error()})
		}
	}
	if err := s.resolveExpiry(expiry, label); err != nil {
		panic(err)
	}
	t := &RecordTable{Table: newTable(scope, *id), RecordExpiry: s.expiry, Settings: s.queue(), DeadLetterQueue: src.dlq}
	warn(t.Table, s.warnings)
	return t
}

// warn adds each warning to c as a synth warning.
func warn(c constructs.IConstruct, warnings []string) {
	for _, w := range warnings {
		awscdk.Annotations_Of(c).AddWarningV2(jsii.String("idemq:settings"), jsii.String(w), nil)
	}
}

// newTable is the record table, as id in scope: on-demand, TTL on
// ExpiryAttribute, point-in-time recovery, deletion protection, kept when
// the stack is deleted. See the package documentation for why it is a
// TableV2.
func newTable(scope constructs.Construct, id string) awsdynamodb.TableV2 {
	return awsdynamodb.NewTableV2(scope, jsii.String(id), &awsdynamodb.TablePropsV2{
		PartitionKey: &awsdynamodb.Attribute{
			Name: jsii.String(KeyAttribute),
			Type: awsdynamodb.AttributeType_STRING,
		},
		Billing:             awsdynamodb.Billing_OnDemand(nil),
		TimeToLiveAttribute: jsii.String(ExpiryAttribute),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		DeletionProtection: jsii.Bool(true),
		RemovalPolicy:      awscdk.RemovalPolicy_RETAIN,
	})
}
