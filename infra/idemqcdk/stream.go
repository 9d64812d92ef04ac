package idemqcdk

import (
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/queue"
)

// StreamSource is the ordered stream an Attachment attaches idemq to in
// place of a queue (AttachmentProps.Stream): a Kinesis data stream or a
// DynamoDB table's stream, and the settings of its event source mapping
// to the function, whose handler runs its batches through handler/stream
// (stream.New(h).Kinesis or .DynamoDB). The record expiry is
// queue.Stream's RecordLifetime of these settings; settings that cannot
// be safe fail the synth, naming the field.
type StreamSource struct {
	// Kinesis is the Kinesis data stream feeding the function. Set it or
	// Table.
	Kinesis awskinesis.IStream
	// Table is the DynamoDB table whose stream feeds the function (its
	// Stream set, awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES say). Set
	// it or Kinesis.
	Table awsdynamodb.ITable
	// Retention is the Kinesis stream's retention period, whole hours from
	// 24 h to 8,760 h. Required for an imported stream; defaults to the
	// stream's own (24 h when it sets none) for one of the app, and one
	// given that differs is refused. A table's stream keeps records 24 h.
	Retention awscdk.Duration
	// StartingPosition is where a new mapping starts reading. Defaults to
	// the app's own mapping's, else TRIM_HORIZON: every record the stream
	// keeps.
	StartingPosition awslambda.StartingPosition
	// MaxRetryAttempts is the mapping's MaximumRetryAttempts: -1 for no
	// limit (retried until the record is too old or expires), or 1 to
	// 10,000. Lambda spaces retries by nothing documented, and a crashed
	// worker's claim holds its key until its lease ends (the timeout plus
	// idem.DefaultLeaseMargin): each retry waits for it until its
	// deadline guard, so a count under queue.Stream.CheckLease's (3 for a
	// 1-minute function), and 0, are refused. Defaults to the app's own
	// mapping's, else -1 (Lambda's).
	MaxRetryAttempts *float64
	// MaxRecordAge is the mapping's MaximumRecordAgeInSeconds: whole
	// seconds from 60 s to 7 days, and at least the batching window plus
	// two function timeouts and idem.DefaultLeaseMargin (CheckLease). Defaults to the app's own mapping's, else
	// none (Lambda's): the stream's retention bounds a record's life.
	MaxRecordAge awscdk.Duration
	// BisectBatchOnError splits a batch whose invocation failed (the
	// handler fails one only when its answer cannot be trusted) and
	// retries each half; splitting spends no retry. Defaults to true.
	BisectBatchOnError *bool
	// ParallelizationFactor is how many batches of one shard run at once,
	// 1 to 10, a partition key's records still in order. Defaults to the
	// app's own mapping's, else Lambda's (1).
	ParallelizationFactor *float64
	// OnFailureQueue is the SQS queue Lambda sends the notice of a
	// dropped batch to (its shard and sequence numbers, not its records).
	// Its retention counts in the record expiry, so that records
	// re-driven from it replay. Set it or OnFailureTopic.
	OnFailureQueue awssqs.IQueue
	// OnFailureTopic is the SNS topic Lambda sends that notice to, in
	// place of OnFailureQueue.
	OnFailureTopic awssns.ITopic
	// OnFailureRetention is how long the notices are kept where records
	// are re-driven from. Required for an imported OnFailureQueue;
	// defaults to the queue's own retention for one of the app, and to
	// none with a topic (a redrive from what its subscribers keep is not
	// counted).
	OnFailureRetention awscdk.Duration
}

// Limits Lambda places on a stream's event source mapping.
const (
	maxStreamBatchSize   = 10000
	maxParallelization   = 10
	kinesisRetention     = 24 * time.Hour // a Kinesis stream's default
	defaultStreamRetries = -1
)

// streamParts are a StreamSource read and checked.
type streamParts struct {
	arn        *string
	id         string // the construct id CDK's own event source gives its mapping
	kind       string // "the Kinesis stream ..." or "the table ...'s stream", for messages
	stream     queue.Stream
	bisect     bool
	start      awslambda.StartingPosition
	parallel   *float64
	onFailure  awslambda.IEventSourceDlq
	failQueue  awssqs.IQueue
	failTopic  awssns.ITopic
	given      streamGiven
	ownWindow  *float64
	ownBatch   *float64
	ownRetries *float64
	ownAge     *float64
}

// streamGiven says which mapping settings the props gave.
type streamGiven struct{ retries, age, parallel bool }

// streamMappingProps are the new mapping's settings.
func streamMappingProps(st *streamParts, s settings) *awslambda.EventSourceMappingOptions {
	opts := &awslambda.EventSourceMappingOptions{
		EventSourceArn:          st.arn,
		StartingPosition:        st.start,
		ReportBatchItemFailures: jsii.Bool(true),
		BisectBatchOnError:      jsii.Bool(st.bisect),
		OnFailure:               st.onFailure,
		ParallelizationFactor:   st.parallel,
	}
	if s.batchSize > 0 {
		opts.BatchSize = jsii.Number(s.batchSize)
	}
	if s.window > 0 {
		opts.MaxBatchingWindow = seconds(s.window)
	}
	if n := st.stream.MaxRetryAttempts; n >= 0 { // CDK takes no -1: unset is Lambda's -1
		opts.RetryAttempts = jsii.Number(n)
	}
	if a := st.stream.MaxRecordAge; a > 0 {
		opts.MaxRecordAge = seconds(a)
	}
	return opts
}

// takeOverStream turns the app's own stream mapping m into idemq's:
// ReportBatchItemFailures, the bisection, the retries and record age, the
// on-failure destination (granted to fn) and the batching settings given
// (given says which).
func takeOverStream(m awslambda.EventSourceMapping, fn awslambda.IFunction, st *streamParts, s settings, given mappingSettings) {
	cfn := m.Node().DefaultChild().(awslambda.CfnEventSourceMapping)
	types := []*string{jsii.String(reportBatchItemFailures)}
	if t := cfn.FunctionResponseTypes(); t != nil {
		for _, x := range *t {
			if x != nil && *x != reportBatchItemFailures {
				types = append(types, x)
			}
		}
	}
	cfn.SetFunctionResponseTypes(&types)
	cfn.SetBisectBatchOnFunctionError(jsii.Bool(st.bisect))
	cfn.SetMaximumRetryAttempts(jsii.Number(st.stream.MaxRetryAttempts))
	if a := st.stream.MaxRecordAge; a > 0 {
		cfn.SetMaximumRecordAgeInSeconds(jsii.Number(a.Seconds()))
	} else {
		cfn.SetMaximumRecordAgeInSeconds(jsii.Number(-1))
	}
	if st.given.parallel {
		cfn.SetParallelizationFactor(st.parallel)
	}
	if given.batchSize != nil {
		cfn.SetBatchSize(jsii.Number(s.batchSize))
	}
	if given.window != nil {
		cfn.SetMaximumBatchingWindowInSeconds(jsii.Number(s.window.Seconds()))
	}
	if st.onFailure == nil { // a refused attachment's stand-in
		return
	}
	dest := st.onFailure.Bind(m, fn) // grants fn sending to it
	cfn.SetDestinationConfig(&awslambda.CfnEventSourceMapping_DestinationConfigProperty{
		OnFailure: &awslambda.CfnEventSourceMapping_OnFailureProperty{Destination: dest.Destination},
	})
}

// grantStream lets fn read the stream (CDK's grants, as its own event
// sources give them) and write the record table.
func grantStream(fn awslambda.IFunction, src *StreamSource, table awsdynamodb.ITable) {
	if src.Kinesis != nil {
		src.Kinesis.GrantRead(fn)
	} else {
		src.Table.GrantStreamRead(fn)
	}
	add := statementAdder(fn)
	add("RecordTable", tableActions, table.TableArn())
	add("ReadMappings", mappingActions, jsii.String("*"))
}

// reachText says how old a record is when the mapping drops it.
func (st *streamParts) reachText() string {
	retention := st.stream.Retention
	if st.stream.DynamoDB {
		retention = 24 * time.Hour
	}
	if a := st.stream.MaxRecordAge; a > 0 && a < retention {
		return fmt.Sprintf("%s (the mapping's MaximumRecordAge)", a)
	}
	return fmt.Sprintf("%s (the stream's retention)", retention)
}

// iteratorAgeLimit is the iterator age that sets off the alarm: a
// quarter of how old a record may get before it is dropped, at most an
// hour, and at least two runs of a batch (batching window + timeout).
func iteratorAgeLimit(st queue.Stream, s settings) time.Duration {
	reach := st.Retention
	if st.DynamoDB {
		reach = 24 * time.Hour
	}
	if st.MaxRecordAge > 0 {
		reach = min(reach, st.MaxRecordAge)
	}
	return max(min(reach/4, time.Hour), 2*(s.window+s.timeout)).Truncate(time.Second)
}
