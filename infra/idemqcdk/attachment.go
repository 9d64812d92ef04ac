package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// NewAttachment attaches idemq to props.Function and props.Queue, adding
// the parts to scope in a construct of the id given (see Attachment). A
// setting that cannot be read or cannot be safe (a visibility timeout
// shorter than the function's timeout, max receives too few for a retry, a
// queue without a dead-letter queue, a setting given for a queue defined
// in the app that differs from the queue's own, an imported queue's
// setting missing, …) fails the synth with an error naming it; the parts
// are then made with the default settings, so that the Attachment's fields
// can be used, and synth fails all the same. With props.Stream it attaches
// to a stream instead (see StreamSource). It panics if props or its
// Function is nil, or both its Queue and Stream.
func NewAttachment(scope constructs.Construct, id *string, props *AttachmentProps) *Attachment {
	if props == nil || props.Function == nil || props.Queue == nil && props.Stream == nil {
		panic("idemqcdk: AttachmentProps.Function, or both Queue and Stream, is nil: give the function and the queue (or stream) that feeds it")
	}
	const prefix = "AttachmentProps."
	c := constructs.NewConstruct(scope, id)
	if props.Stream != nil {
		return newStreamAttachment(c, props)
	}
	a := &Attachment{Construct: c, queue: props.Queue}
	keep := deref(props.KeepV020)

	// The app's own mapping from the queue to the function, taken over.
	var own awslambda.EventSourceMapping
	var ownSettings mappingSettings
	var err error
	if !keep {
		if own, err = existingMapping(props.Function, props.Queue); err == nil && own != nil {
			ownSettings, err = readMapping(own)
		}
	}
	var src *source
	if err == nil {
		src, err = readQueue(props.Queue, props.QueueSettings, prefix)
	}
	var fn awslambda.Function
	if err == nil {
		fn, err = src.readFunction(props.Function, prefix)
	}
	var s settings
	var given mappingSettings
	if err == nil {
		s, given, err = props.resolve(src, ownSettings, prefix)
	}
	if err == nil {
		err = checkRegions(awscdk.Stack_Of(c), s, src.label(prefix))
	}
	if err != nil {
		refuse(c, err)
		s, given = refusedSettings(), mappingSettings{}
		if src == nil || src.dlq == nil {
			src = &source{dlq: props.Queue} // stands in; nothing deploys
		}
	} else {
		a.RecordExpiry, a.Settings = s.expiry, s.queue()
	}
	warn(c, s.warnings)
	a.DeadLetterQueue = src.dlq

	a.makeStore(c, fn, s)
	allow(props.Function, a.Table, props.Queue, s.backoff)
	if a.Bucket != nil {
		a.Bucket.GrantResults(props.Function)
	}
	if key := props.Queue.EncryptionMasterKey(); key != nil {
		key.GrantDecrypt(props.Function)
	}
	switch {
	case own != nil:
		takeOver(own, s, given)
		a.EventSource = own
	case keep:
		opts := mappingProps(props.Queue, s, given)
		a.EventSource = awslambda.NewEventSourceMapping(c, jsii.String("QueueSource"), &awslambda.EventSourceMappingProps{
			Target: props.Function, EventSourceArn: opts.EventSourceArn, BatchSize: jsii.Number(s.batchSize), ReportBatchItemFailures: opts.ReportBatchItemFailures,
			MaxBatchingWindow: opts.MaxBatchingWindow, MaxConcurrency: opts.MaxConcurrency, ProvisionedPollerConfig: opts.ProvisionedPollerConfig,
		})
	default:
		a.EventSource = props.Function.AddEventSourceMapping(jsii.String(eventSourceID(props.Queue)), mappingProps(props.Queue, s, given))
	}
	// The event source polls with the role's permissions: create it only
	// once its policy exists.
	if role := props.Function.Role(); role != nil {
		a.EventSource.Node().AddDependency(role)
	}
	watched := parts{queue: props.Queue, dlq: src.dlq, fn: props.Function, namespace: s.request.Namespace, s: s}
	a.Alarms = addAlarms(c, watched, derefSlice(props.AlarmActions))
	if keep {
		a.RedrivePolicy = newRedrivePolicy(c, "RedrivePolicy", src.dlq, props.Queue)
	}
	a.Dashboard = newDashboard(c, "Dashboard", watched, a.Alarms.All())
	ch := &checks{functions: []awslambda.IFunction{props.Function}, table: a.Table}
	if fn != nil && fn != props.Function {
		ch.functions = append(ch.functions, fn)
	}
	addChecks(c, ch)
	return a
}
