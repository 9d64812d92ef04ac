package idemqcdk

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
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
	// 10,000; 0, no retry, is refused. Lambda spaces retries by nothing
	// documented: a count can run out while a crashed worker's claim
	// holds a key, sending its record to the on-failure destination with
	// the work undone, so prefer -1 with MaxRecordAge. Defaults to the
	// app's own mapping's, else -1 (Lambda's).
	MaxRetryAttempts *float64
	// MaxRecordAge is the mapping's MaximumRecordAgeInSeconds: whole
	// seconds from 60 s to 7 days, and at least the batching window plus
	// two function timeouts. Defaults to the app's own mapping's, else
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

// readStream reads and checks p.Stream, and the props that do not apply
// to a stream, against the app's own mapping own (nil: none).
func (p *AttachmentProps) readStream(own awslambda.EventSourceMapping, prefix string) (*streamParts, error) {
	src := p.Stream
	sp := prefix + "Stream."
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"Queue", p.Queue != nil}, {"QueueSettings", p.QueueSettings != nil}, {"Pollers", p.Pollers != nil}, {"MaxConcurrency", p.MaxConcurrency != nil},
		{"DisableBackoff", p.DisableBackoff != nil}, {"KeepV020", p.KeepV020 != nil}} {
		if f.set {
			return nil, bad(f.name, "%s%s is set with %sStream: it applies to a queue only; unset it", prefix, f.name, prefix)
		}
	}
	s := &streamParts{bisect: src.BisectBatchOnError == nil || *src.BisectBatchOnError, parallel: src.ParallelizationFactor}
	switch {
	case (src.Kinesis == nil) == (src.Table == nil):
		return nil, bad("Stream", "%sKinesis and %sTable: give exactly one, the stream feeding the function", sp, sp)
	case src.Kinesis != nil:
		s.arn, s.id = src.Kinesis.StreamArn(), "KinesisEventSource:"+*awscdk.Names_NodeUniqueId(src.Kinesis.Node())
		s.kind = "the Kinesis stream " + *src.Kinesis.Node().Path()
		given, err := duration(src.Retention, sp+"Retention")
		if err != nil {
			return nil, bad("Retention", "%v", err)
		}
		s.stream.Retention = given
		if d, ok := src.Kinesis.(awskinesis.Stream); ok {
			read := kinesisRetention
			if cfn, ok := d.Node().DefaultChild().(awskinesis.CfnStream); ok && cfn.RetentionPeriodHours() != nil {
				h := cfn.RetentionPeriodHours()
				if *awscdk.Token_IsUnresolved(h) {
					return nil, bad("Retention", "%s's RetentionPeriodHours is a token (a value known only at deployment), which synth cannot check; give it as a number", s.kind)
				}
				read = time.Duration(*h) * time.Hour
			}
			if given != 0 && given != read {
				return nil, bad("Retention", "%sRetention is %s, but %s keeps records %s: leave it unset for a stream defined in this app", sp, given, s.kind, read)
			}
			s.stream.Retention = read
		} else if given == 0 {
			return nil, bad("Retention", "%s is imported, so CDK cannot read its retention, which sizes the records: set %sRetention (as the stream has it)", s.kind, sp)
		}
	default:
		s.arn, s.id = src.Table.TableStreamArn(), "DynamoDBEventSource:"+*awscdk.Names_NodeUniqueId(src.Table.Node())
		s.kind = "the table " + *src.Table.Node().Path() + "'s stream"
		s.stream.DynamoDB = true
		if s.arn == nil {
			return nil, bad("Stream", "the table %s has no stream: set its Stream (awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES), or give an imported table its TableStreamArn", *src.Table.Node().Path())
		}
		if src.Retention != nil {
			return nil, bad("Retention", "%sRetention is set with %sTable: a table's stream keeps records 24 h, fixed; unset it", sp, sp)
		}
	}

	// The on-failure destination.
	switch {
	case (src.OnFailureQueue == nil) == (src.OnFailureTopic == nil):
		return nil, bad("OnFailure", "%sOnFailureQueue and %sOnFailureTopic: give exactly one, where Lambda sends the notice of a batch it drops "+
			"(retries spent or records too old); without one a dropped record leaves no trace", sp, sp)
	case src.OnFailureQueue != nil:
		s.failQueue, s.onFailure = src.OnFailureQueue, awslambdaeventsources.NewSqsDlq(src.OnFailureQueue)
		given, err := duration(src.OnFailureRetention, sp+"OnFailureRetention")
		if err != nil {
			return nil, bad("OnFailureRetention", "%v", err)
		}
		s.stream.OnFailureRetention = given
		if d, ok := src.OnFailureQueue.(awssqs.Queue); ok {
			read := sqsDefaultRetention
			if cfn, ok := d.Node().DefaultChild().(awssqs.CfnQueue); ok && cfn.MessageRetentionPeriod() != nil {
				v := cfn.MessageRetentionPeriod()
				if *awscdk.Token_IsUnresolved(v) {
					return nil, bad("OnFailureRetention", "the queue %s's MessageRetentionPeriod is a token, which synth cannot check; give it as a number", *d.Node().Path())
				}
				read = time.Duration(*v) * time.Second
			}
			if given != 0 && given != read {
				return nil, bad("OnFailureRetention", "%sOnFailureRetention is %s, but the queue %s keeps messages %s: leave it unset for a queue defined in this app", sp, given, *d.Node().Path(), read)
			}
			s.stream.OnFailureRetention = read
		} else if given == 0 {
			return nil, bad("OnFailureRetention", "%sOnFailureQueue %s is imported, so CDK cannot read its retention: set %sOnFailureRetention (as the queue has it)",
				sp, *src.OnFailureQueue.Node().Path(), sp)
		}
	default:
		s.failTopic, s.onFailure = src.OnFailureTopic, awslambdaeventsources.NewSnsDlq(src.OnFailureTopic)
		given, err := duration(src.OnFailureRetention, sp+"OnFailureRetention")
		if err != nil {
			return nil, bad("OnFailureRetention", "%v", err)
		}
		s.stream.OnFailureRetention = given
	}

	// The app's own mapping's settings, kept where the props leave them.
	var cfn awslambda.CfnEventSourceMapping
	if own != nil {
		cfn = own.Node().DefaultChild().(awslambda.CfnEventSourceMapping)
		for _, f := range []struct {
			name string
			v    *float64
			out  **float64
		}{{"BatchSize", cfn.BatchSize(), &s.ownBatch}, {"MaximumBatchingWindowInSeconds", cfn.MaximumBatchingWindowInSeconds(), &s.ownWindow},
			{"MaximumRetryAttempts", cfn.MaximumRetryAttempts(), &s.ownRetries}, {"MaximumRecordAgeInSeconds", cfn.MaximumRecordAgeInSeconds(), &s.ownAge}} {
			if f.v != nil && *awscdk.Token_IsUnresolved(f.v) {
				return nil, bad("EventSource", "the event source mapping %s's %s is a token (a value known only at deployment), which synth cannot check; give a number", *own.Node().Path(), f.name)
			}
			*f.out = f.v
		}
	}
	s.stream.MaxRetryAttempts = defaultStreamRetries
	switch {
	case src.MaxRetryAttempts != nil:
		s.given.retries = true
		s.stream.MaxRetryAttempts = int(*src.MaxRetryAttempts)
		if float64(s.stream.MaxRetryAttempts) != *src.MaxRetryAttempts {
			return nil, bad("MaxRetryAttempts", "%sMaxRetryAttempts %v is not a whole number", sp, *src.MaxRetryAttempts)
		}
	case s.ownRetries != nil:
		s.stream.MaxRetryAttempts = int(*s.ownRetries)
	}
	switch age, err := duration(src.MaxRecordAge, sp+"MaxRecordAge"); {
	case err != nil:
		return nil, bad("MaxRecordAge", "%v", err)
	case src.MaxRecordAge != nil:
		s.given.age = true
		s.stream.MaxRecordAge = age
	case s.ownAge != nil:
		s.stream.MaxRecordAge = time.Duration(*s.ownAge) * time.Second
	}
	s.start = src.StartingPosition
	if s.start == "" {
		s.start = awslambda.StartingPosition_TRIM_HORIZON
	}
	if pf := src.ParallelizationFactor; pf != nil {
		s.given.parallel = true
		if *pf != float64(int(*pf)) || *pf < 1 || *pf > maxParallelization {
			return nil, bad("ParallelizationFactor", "%sParallelizationFactor %v must be a whole number from 1 to %d", sp, *pf, maxParallelization)
		}
	}
	return s, nil
}

// resolveStream checks p's settings with the stream's and the function's
// timeout (in s), as resolve does a queue's, and sizes the record expiry
// from queue.Stream.RecordLifetime; messages name AttachmentProps' fields.
func (p *AttachmentProps) resolveStream(st *streamParts, s settings, prefix string) (settings, error) {
	sp := prefix + "Stream."
	label := func(field string) string {
		switch field {
		case "Timeout":
			return "the function's Timeout"
		case "Retention", "MaxRetryAttempts", "MaxRecordAge", "OnFailureRetention":
			return sp + field
		case "BatchingWindow":
			return prefix + "MaxBatchingWindow"
		case "DisableBlobs":
			return prefix + "ResultBucket"
		}
		if f, ok := attachmentFields[field]; ok {
			return prefix + f
		}
		return prefix + field
	}
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	w := &WorkerProps{
		Request:       deref(p.Request),
		BlobPrefix:    deref(p.ResultPrefix),
		DisableBlobs:  !deref(p.ResultBucket),
		Replicas:      derefAll(p.Replicas),
		WitnessRegion: deref(p.WitnessRegion),
	}
	if d := p.ResultExpiryDays; d != nil {
		w.BlobExpiryDays = int(*d)
		if float64(w.BlobExpiryDays) != *d || w.BlobExpiryDays == 0 {
			return s, bad("BlobExpiryDays", "%sResultExpiryDays %v must be a whole number, not 0", prefix, *d)
		}
	}
	if p.Request == nil {
		return s, bad("Request.Namespace", "%sRequest is nil: give at least its Namespace, which prefixes every idempotency key and must never change", prefix)
	}
	s.blobs, s.backoff = !w.DisableBlobs, false
	s.batchSize = 0 // Lambda's (100), unless given
	if b := p.BatchSize; b != nil || st.ownBatch != nil {
		if b == nil {
			b = st.ownBatch
		}
		s.batchSize = int(*b)
		if float64(s.batchSize) != *b || s.batchSize < 1 || s.batchSize > maxStreamBatchSize {
			return s, bad("BatchSize", "%sBatchSize %v must be a whole number from 1 to %d", prefix, *b, maxStreamBatchSize)
		}
	}
	var err error
	if s.window, err = duration(p.MaxBatchingWindow, prefix+"MaxBatchingWindow"); err != nil {
		return s, bad("BatchingWindow", "%v", err)
	}
	if p.MaxBatchingWindow == nil && st.ownWindow != nil {
		s.window = time.Duration(*st.ownWindow) * time.Second
	}
	st.stream.BatchingWindow = s.window
	life, err := st.stream.RecordLifetime(s.timeout)
	if err != nil {
		field := "Stream"
		if se, ok := errors.AsType[*queue.SettingError](err); ok {
			field = se.Setting
		}
		return s, &SettingError{Field: field, Msg: fmt.Sprintf("%s cannot be safe (%s)", st.kind, label(field)), Err: err}
	}
	given, err := duration(p.RecordExpiry, prefix+"RecordExpiry")
	if err != nil {
		return s, bad("RecordExpiry", "%v", err)
	}
	s.expiry = life
	if given != 0 {
		s.expiry = given
		once := st.stream
		once.OnFailureRetention = 0
		if err := once.CheckExpiry(given, s.timeout); err != nil {
			return s, &SettingError{Field: "RecordExpiry", Msg: fmt.Sprintf("%sRecordExpiry %s is too short; raise it, or leave it unset for the computed %s", prefix, given, life), Err: err}
		}
		if err := st.stream.CheckExpiry(given, s.timeout); err != nil {
			s.warnings = append(s.warnings, warning{WarningRecordExpiry, fmt.Sprintf(
				"%sRecordExpiry %s does not cover a redrive from the on-failure destination, which keeps notices %s: a record re-driven late may find its record expired and run its work again; leave it unset for the computed %s",
				prefix, given, st.stream.OnFailureRetention, life)})
		}
	}
	if err := s.resolveBlobs(w, label); err != nil {
		return s, err
	}
	if err := s.resolveTable(w, label); err != nil {
		return s, err
	}
	if s.request, err = resolveRequest(w.Request, label); err != nil {
		return s, err
	}
	stream := st.stream
	s.stream = &stream
	return s, nil
}

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
// on-failure destination (granted to fn) and the batching settings given.
func takeOverStream(m awslambda.EventSourceMapping, fn awslambda.IFunction, st *streamParts, s settings, p *AttachmentProps) {
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
	if p.BatchSize != nil {
		cfn.SetBatchSize(jsii.Number(s.batchSize))
	}
	if p.MaxBatchingWindow != nil {
		cfn.SetMaximumBatchingWindowInSeconds(jsii.Number(s.window.Seconds()))
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

// addStreamAlarms adds the alarms of a stream attachment: iterator age
// and the on-failure destination's notices beside the handler's failed
// records and the function's duration, errors and throttles.
func (a *Alarms) addStreamAlarms(p parts, alarm func(id, description string, metric awscloudwatch.Metric, threshold float64) awscloudwatch.Alarm, period awscdk.Duration) {
	st, src, fn, s := p.stream, p.src, p.fn, p.s
	maximum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}
	age := iteratorAgeLimit(st.stream, s)
	var metric awscloudwatch.Metric
	if src.Kinesis != nil {
		metric = src.Kinesis.MetricGetRecordsIteratorAgeMilliseconds(maximum)
	} else {
		metric = fn.Metric(jsii.String("IteratorAge"), maximum)
	}
	a.IteratorAgeAlarm = alarm("IteratorAgeAlarm", fmt.Sprintf(
		"The idemq function reads %s %s behind: it is falling behind, or a record keeps failing and holds its shard; a record is dropped to the on-failure destination when it is %s old.",
		st.kind, age, st.reachText()), metric, float64(age.Milliseconds()))
	if st.failQueue != nil {
		a.OnFailureAlarm = alarm("OnFailureAlarm", "Notices of dropped batches in the idemq on-failure queue: records whose retries or age ran out, with their work undone. Re-drive them while the stream keeps them.",
			st.failQueue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: awscdk.Duration_Minutes(jsii.Number(1)), Statistic: jsii.String("Maximum")}), 1)
	} else {
		a.OnFailureAlarm = alarm("OnFailureAlarm", "Notices of dropped batches sent to the idemq on-failure topic: records whose retries or age ran out, with their work undone. Re-drive them while the stream keeps them.",
			st.failTopic.MetricNumberOfMessagesPublished(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}), 1)
	}
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

// present is a's alarms that exist, in the order Alarms documents.
func (a *Alarms) present() []awscloudwatch.Alarm {
	all := []awscloudwatch.Alarm{a.DeadLetterAlarm, a.DeadLetterExpiryAlarm, a.AgeAlarm, a.IteratorAgeAlarm, a.OnFailureAlarm, a.FailedAlarm, a.DurationAlarm, a.ErrorsAlarm, a.ThrottlesAlarm}
	return slices.DeleteFunc(all, func(x awscloudwatch.Alarm) bool { return x == nil })
}
