package idemqcdk

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
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
		if st == nil || st.arn == nil {
			return a // nothing can be made without the stream; synth fails on the error
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
	a.Table = newRecordTable(c, "Table", s)
	if s.blobs {
		a.Bucket = &ResultBucket{Bucket: newBucket(c, "Bucket", s.blobPrefix, s.blobDays), Prefix: s.blobPrefix, ExpiryDays: s.blobDays}
	}
	a.Environment = handlerEnv(a.Table, a.Bucket, s)
	if fn != nil {
		for _, k := range slices.Sorted(maps.Keys(a.Environment)) {
			fn.AddEnvironment(jsii.String(k), a.Environment[k], nil)
		}
	}
	grantStream(props.Function, props.Stream, a.Table)
	if a.Bucket != nil {
		a.Bucket.GrantResults(props.Function)
	}
	if own != nil {
		takeOverStream(own, props.Function, st, s, props)
		a.EventSource = own
	} else {
		a.EventSource = props.Function.AddEventSourceMapping(jsii.String(st.id), streamMappingProps(st, s))
	}
	if role := props.Function.Role(); role != nil {
		a.EventSource.Node().AddDependency(role)
	}
	a.Alarms = addAlarms(c, parts{fn: props.Function, namespace: s.request.Namespace, s: s, stream: st, src: props.Stream}, derefSlice(props.AlarmActions))
	ch := &checks{functions: []awslambda.IFunction{props.Function}, table: a.Table}
	if fn != nil && fn != props.Function {
		ch.functions = append(ch.functions, fn)
	}
	addChecks(c, ch)
	return a
}

// existingStreamMapping is the one event source mapping (made with CDK's
// L2 EventSourceMapping, as KinesisEventSource, DynamoEventSource and
// AddEventSourceMapping make them) from the stream with the ARN arn to fn
// in fn's stack, or nil; two or more, or a bare CfnEventSourceMapping,
// are an error naming them.
func existingStreamMapping(fn awslambda.IFunction, arn *string) (awslambda.EventSourceMapping, error) {
	stack := awscdk.Stack_Of(fn)
	source, function := resolved(stack, arn), resolved(stack, fn.FunctionName())
	var found []awslambda.EventSourceMapping
	var paths []string
	for _, m := range mappingsIn(stack) {
		if m.source != source || m.function != function {
			continue
		}
		paths = append(paths, m.path)
		if l2, ok := m.cfn.Node().Scope().(awslambda.EventSourceMapping); ok {
			found = append(found, l2)
		}
	}
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
