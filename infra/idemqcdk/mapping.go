package idemqcdk

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// reportBatchItemFailures is the response type an SQS event source needs
// for the handler's partial batch response to count.
const reportBatchItemFailures = "ReportBatchItemFailures"

// eventSourceID is the construct id CDK's own
// awslambdaeventsources.NewSqsEventSource gives the mapping it adds to a
// function (fn.AddEventSource): "SqsEventSource:" and the queue's unique
// id. A mapping made with it under the same function has the same
// construct path, so the same logical id: swapping a team's AddEventSource
// line for an Attachment updates the mapping in place.
func eventSourceID(q awssqs.IQueue) string {
	return "SqsEventSource:" + *awscdk.Names_NodeUniqueId(q.Node())
}

// resolved is v resolved in stack and written as JSON, for comparing two
// tokens (a queue's ARN, a function's name); "" for nil.
func resolved(stack awscdk.Stack, v any) string {
	if v == nil {
		return ""
	}
	if p, ok := v.(*string); ok && p == nil {
		return ""
	}
	b, err := json.Marshal(stack.Resolve(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// mapping is an event source mapping in a stack: its L1 resource, the
// resolved source and function, and its path for messages.
type mapping struct {
	cfn              awslambda.CfnEventSourceMapping
	source, function string // resolved
	path             string
}

// at is the construct to name in a message about the mapping: its L2
// EventSourceMapping when it has one, else its L1 resource.
func (m mapping) at() constructs.IConstruct {
	if l2, ok := m.cfn.Node().Scope().(awslambda.EventSourceMapping); ok {
		return l2
	}
	return m.cfn
}

// name is the path of m.at().
func (m mapping) name() string { return *m.at().Node().Path() }

// reports says whether the mapping has ReportBatchItemFailures.
func (m mapping) reports() bool {
	t := m.cfn.FunctionResponseTypes()
	return t != nil && slices.ContainsFunc(*t, func(s *string) bool { return s != nil && *s == reportBatchItemFailures })
}

// mappingsIn are the event source mappings of stack (every
// CfnEventSourceMapping, however made), in construct order.
func mappingsIn(stack awscdk.Stack) []mapping {
	var out []mapping
	for _, c := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		cfn, ok := c.(awslambda.CfnEventSourceMapping)
		if !ok || awscdk.Stack_Of(cfn) != stack {
			continue
		}
		out = append(out, mapping{cfn: cfn, source: resolved(stack, cfn.EventSourceArn()), function: resolved(stack, cfn.FunctionName()), path: *cfn.Node().Path()})
	}
	return out
}

// mappingSettings are the batching settings of an event source mapping
// a team already has, as its template sets them (nil: Lambda's default).
type mappingSettings struct {
	batchSize, window, concurrency *float64
	pollers                        bool
}

// mappingsFrom lists the event source mappings from the source with the
// ARN arn to fn in fn's stack: each one's path, and those made with CDK's
// L2 EventSourceMapping (which idemq can take over).
func mappingsFrom(fn awslambda.IFunction, arn *string) (found []awslambda.EventSourceMapping, paths []string) {
	stack := awscdk.Stack_Of(fn)
	source, function := resolved(stack, arn), resolved(stack, fn.FunctionName())
	for _, m := range mappingsIn(stack) {
		if m.source != source || m.function != function {
			continue
		}
		paths = append(paths, m.path)
		if l2, ok := m.cfn.Node().Scope().(awslambda.EventSourceMapping); ok {
			found = append(found, l2)
		}
	}
	return found, paths
}

// existingMapping is the one event source mapping (made with CDK's L2
// EventSourceMapping, as SqsEventSource, AddEventSourceMapping and
// NewEventSourceMapping make them) from q to fn in fn's stack, or nil; two
// or more are an error naming them.
func existingMapping(fn awslambda.IFunction, q awssqs.IQueue) (awslambda.EventSourceMapping, error) {
	found, paths := mappingsFrom(fn, q.QueueArn())
	switch {
	case len(paths) > 1:
		return nil, &SettingError{Field: "EventSource", Msg: fmt.Sprintf(
			"%d event source mappings from the queue %s to the function %s (%s): Lambda takes one; remove all but one, and attach idemq after it, which then takes it over",
			len(paths), *q.Node().Path(), *fn.Node().Path(), strings.Join(paths, ", "))}
	case len(paths) == 1 && len(found) == 0:
		return nil, &SettingError{Field: "EventSource", Msg: fmt.Sprintf(
			"the event source mapping %s from the queue %s to the function %s is a bare awslambda.CfnEventSourceMapping, which idemq cannot take over; "+
				"make it with fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(queue, ...)) or awslambda.NewEventSourceMapping, or remove it and let idemq make it",
			paths[0], *q.Node().Path(), *fn.Node().Path())}
	case len(found) == 1:
		return found[0], nil
	}
	return nil, nil
}

// readMapping is the batching settings of the mapping m; a token among
// them is an error naming it.
func readMapping(m awslambda.EventSourceMapping) (mappingSettings, error) {
	cfn := m.Node().DefaultChild().(awslambda.CfnEventSourceMapping)
	stack := awscdk.Stack_Of(m)
	var ms mappingSettings
	for _, f := range []struct {
		name string
		v    *float64
		out  **float64
	}{{"BatchSize", cfn.BatchSize(), &ms.batchSize}, {"MaximumBatchingWindowInSeconds", cfn.MaximumBatchingWindowInSeconds(), &ms.window}} {
		if f.v != nil && *awscdk.Token_IsUnresolved(f.v) {
			return ms, &SettingError{Field: "EventSource", Msg: fmt.Sprintf("the event source mapping %s's %s is a token (a value known only at deployment), which synth cannot check; give a number",
				*m.Node().Path(), f.name)}
		}
		*f.out = f.v
	}
	if sc := cfn.ScalingConfig(); sc != nil {
		var c struct {
			MaximumConcurrency *float64 `json:"maximumConcurrency"`
		}
		if err := json.Unmarshal([]byte(resolved(stack, sc)), &c); err != nil || c.MaximumConcurrency == nil {
			return ms, &SettingError{Field: "EventSource", Msg: fmt.Sprintf("the event source mapping %s's ScalingConfig.MaximumConcurrency cannot be read at synth; give a number", *m.Node().Path())}
		}
		ms.concurrency = c.MaximumConcurrency
	}
	ms.pollers = cfn.ProvisionedPollerConfig() != nil
	return ms, nil
}

// takeOver makes the team's mapping m idemq's: ReportBatchItemFailures on
// (kept with any other response type it has), and each batching setting
// given in s (given says which) set; the rest stays as the team has it.
func takeOver(m awslambda.EventSourceMapping, s settings, given mappingSettings) {
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
	if given.batchSize != nil {
		cfn.SetBatchSize(jsii.Number(s.batchSize))
	}
	if given.window != nil {
		if s.window > 0 {
			cfn.SetMaximumBatchingWindowInSeconds(jsii.Number(s.window.Seconds()))
		} else {
			cfn.SetMaximumBatchingWindowInSeconds(nil)
		}
	}
	if given.concurrency != nil {
		if s.concurrency == NoMaxConcurrency {
			cfn.AddPropertyDeletionOverride(jsii.String("ScalingConfig"))
		} else {
			cfn.SetScalingConfig(&awslambda.CfnEventSourceMapping_ScalingConfigProperty{MaximumConcurrency: jsii.Number(s.concurrency)})
		}
	}
	if given.pollers {
		cfn.SetProvisionedPollerConfig(&awslambda.CfnEventSourceMapping_ProvisionedPollerConfigProperty{
			MinimumPollers: jsii.Number(s.pollers.min), MaximumPollers: jsii.Number(s.pollers.max),
		})
	}
}

// mappingProps are the event source mapping's settings from s: the queue,
// ReportBatchItemFailures, and each of the batch size, the batching
// window, the maximum concurrency and the pollers only when set (given
// says which the Attachment was given; a Worker gives its batch size
// always), so that Lambda's defaults are left alone.
func mappingProps(q awssqs.IQueue, s settings, given mappingSettings) *awslambda.EventSourceMappingOptions {
	opts := &awslambda.EventSourceMappingOptions{
		EventSourceArn:          q.QueueArn(),
		ReportBatchItemFailures: jsii.Bool(true),
	}
	if given.batchSize != nil {
		opts.BatchSize = jsii.Number(s.batchSize)
	}
	if s.window > 0 {
		opts.MaxBatchingWindow = seconds(s.window)
	}
	if s.concurrency != NoMaxConcurrency {
		opts.MaxConcurrency = jsii.Number(s.concurrency)
	}
	opts.ProvisionedPollerConfig = pollerConfig(s) // nil: on demand
	return opts
}

// newEventSource feeds a Worker's function fn from its queue, as the
// construct QueueSource under fn (its path since v0.1), reporting batch
// item failures so that only the failed messages come back.
func newEventSource(fn awslambda.Function, q awssqs.IQueue, s settings) awslambda.EventSourceMapping {
	return fn.AddEventSourceMapping(jsii.String("QueueSource"), mappingProps(q, s, mappingSettings{batchSize: jsii.Number(0)}))
}
