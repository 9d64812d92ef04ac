package idemqcdk

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
)

// newStreamAttachment is NewAttachment for props.Stream: the record table
// sized from the stream's settings (queue.Stream.RecordLifetime), the
// function's grants and environment, the event source mapping (the app's
// own from the stream to the function, taken over, or one made under the
// construct path CDK's own KinesisEventSource or DynamoEventSource would
// give it) with ReportBatchItemFailures, the bisection, the retries and
// record age and the on-failure destination, and the six alarms. A
// setting refused fails the synth; the parts are then made with safe
// stand-ins, as NewAttachment does.
func newStreamAttachment(c constructs.Construct, props *AttachmentProps) *Attachment {
	const prefix = "AttachmentProps."
	a := &Attachment{Construct: c}
	var own awslambda.EventSourceMapping
	var st *streamParts
	var fn awslambda.Function
	var s settings
	src := &source{labels: map[string]string{}}
	var err error
	fn, err = src.readFunction(props.Function, prefix)
	if err == nil {
		arn := props.Stream.Kinesis
		var arnValue *string
		if arn != nil {
			arnValue = arn.StreamArn()
		} else if props.Stream.Table != nil {
			arnValue = props.Stream.Table.TableStreamArn()
		}
		if arnValue != nil {
			own, err = existingStreamMapping(props.Function, arnValue)
		}
	}
	if err == nil {
		st, err = props.readStream(own, prefix)
	}
	if err == nil {
		s, err = props.resolveStream(st, src.settings, prefix)
	}
	if err == nil {
		err = checkRegions(awscdk.Stack_Of(c), s, func(field string) string { return prefix + field })
	}
	if err != nil {
		refuse(c, err)
		s = refusedSettings()
		if st == nil {
			st = fallbackStream(props.Stream)
		}
		if st.arn == nil {
			return a // no stream to attach to: nothing to make; synth fails on the error
		}
		// Stand-ins CDK accepts: Lambda's own defaults.
		st.stream.MaxRetryAttempts, st.stream.MaxRecordAge, st.parallel = -1, 0, nil
		stream := st.stream
		s.stream, s.backoff = &stream, false
	} else {
		a.RecordExpiry, a.Stream = s.expiry, *s.stream
	}
	warn(c, s.warnings)
	a.DeadLetterQueue = st.failQueue
	a.makeStore(c, fn, s)
	grantStream(props.Function, props.Stream, a.Table)
	if a.Bucket != nil {
		a.Bucket.GrantResults(props.Function)
	}
	if own != nil {
		given := mappingSettings{batchSize: props.BatchSize}
		if props.MaxBatchingWindow != nil {
			given.window = jsii.Number(s.window.Seconds())
		}
		takeOverStream(own, props.Function, st, s, given)
		a.EventSource = own
	} else {
		a.EventSource = props.Function.AddEventSourceMapping(jsii.String(st.id), streamMappingProps(st, s))
	}
	if role := props.Function.Role(); role != nil {
		a.EventSource.Node().AddDependency(role)
	}
	watched := parts{fn: props.Function, namespace: s.request.Namespace, s: s, stream: st, src: props.Stream}
	a.Alarms = addAlarms(c, watched, derefSlice(props.AlarmActions))
	a.Dashboard = newDashboard(c, "Dashboard", watched, a.Alarms.All())
	ch := &checks{functions: []awslambda.IFunction{props.Function}, table: a.Table}
	if fn != nil && fn != props.Function {
		ch.functions = append(ch.functions, fn)
	}
	addChecks(c, ch)
	return a
}

// fallbackStream is src's stream alone, when its settings were refused:
// the stand-in the parts are made with (no on-failure destination).
func fallbackStream(src *StreamSource) *streamParts {
	st := &streamParts{bisect: true, start: awslambda.StartingPosition_TRIM_HORIZON}
	st.stream.MaxRetryAttempts = -1
	switch {
	case src.Kinesis != nil:
		st.arn, st.id, st.kind = src.Kinesis.StreamArn(), "KinesisEventSource:"+*awscdk.Names_NodeUniqueId(src.Kinesis.Node()), "the Kinesis stream "+*src.Kinesis.Node().Path()
		st.stream.Retention = kinesisRetention
	case src.Table != nil:
		st.arn, st.id, st.kind = src.Table.TableStreamArn(), "DynamoDBEventSource:"+*awscdk.Names_NodeUniqueId(src.Table.Node()), "the table "+*src.Table.Node().Path()+"'s stream"
		st.stream.DynamoDB = true
	}
	return st
}

// existingStreamMapping is the one event source mapping (made with CDK's
// L2 EventSourceMapping, as KinesisEventSource, DynamoEventSource and
// AddEventSourceMapping make them) from the stream with the ARN arn to fn
// in fn's stack, or nil; two or more, or a bare CfnEventSourceMapping,
// are an error naming them.
func existingStreamMapping(fn awslambda.IFunction, arn *string) (awslambda.EventSourceMapping, error) {
	found, paths := mappingsFrom(fn, arn)
	switch {
	case len(paths) > 1:
		return nil, &SettingError{Field: "EventSource", Msg: fmt.Sprintf(
			"%d event source mappings from the stream to the function %s (%s): each reads every record, so each runs it; remove all but one, and attach idemq after it, which then takes it over",
			len(paths), *fn.Node().Path(), strings.Join(paths, ", "))}
	case len(paths) == 1 && len(found) == 0:
		return nil, &SettingError{Field: "EventSource", Msg: fmt.Sprintf(
			"the event source mapping %s from the stream to the function %s is a bare awslambda.CfnEventSourceMapping, which idemq cannot take over; "+
				"make it with fn.AddEventSource (awslambdaeventsources.NewKinesisEventSource or NewDynamoEventSource), or remove it and let idemq make it",
			paths[0], *fn.Node().Path())}
	case len(found) == 1:
		return found[0], nil
	}
	return nil, nil
}

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
		// Its starting position stays (a change replaces the mapping,
		// which then reads from that position again); its on-failure
		// destination must be the one given, which replaces it.
		stack := awscdk.Stack_Of(own)
		if pos := cfn.StartingPosition(); src.StartingPosition != "" && pos != nil && *pos != string(src.StartingPosition) {
			return nil, bad("StartingPosition", "%sStartingPosition is %s, but the app's event source mapping %s starts at %s: a change replaces the mapping; leave it unset",
				sp, src.StartingPosition, *own.Node().Path(), *pos)
		}
		if dc := cfn.DestinationConfig(); dc != nil {
			var arn *string
			if s.failQueue != nil {
				arn = s.failQueue.QueueArn()
			} else {
				arn = s.failTopic.TopicArn()
			}
			if !strings.Contains(resolved(stack, dc), resolved(stack, arn)) {
				return nil, bad("OnFailure", "the app's event source mapping %s has an on-failure destination other than %sOnFailureQueue or OnFailureTopic: give that one there, which sizes the records and the alarm",
					*own.Node().Path(), sp)
			}
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
		case "MaxRetryAttempts", "MaxRecordAge":
			if field == "MaxRetryAttempts" && !st.given.retries && st.ownRetries != nil || field == "MaxRecordAge" && !st.given.age && st.ownAge != nil {
				return "the app's event source mapping's Maximum" + strings.TrimPrefix(field, "Max") + " (or " + sp + field + ")"
			}
			return sp + field
		case "Retention", "OnFailureRetention":
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
	if p.ResultPrefix != nil && *p.ResultPrefix == "" {
		return s, checkBlobPrefix("", func(string) string { return prefix + "ResultPrefix" })
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
	// A crashed invocation's claim holds its key until its lease ends:
	// the retries (or the record age) must outlast it (CheckLease).
	life, err := st.stream.RecordLifetime(s.timeout)
	if err == nil {
		err = st.stream.CheckLease(s.timeout+idem.DefaultLeaseMargin+2*idem.DefaultClockSkew, s.timeout)
	}
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
