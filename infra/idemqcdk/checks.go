package idemqcdk

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// checks are what an Attachment or a Worker checks of its whole stack at
// synth, once the app's code has run to the end: what the app can still
// do to idemq's parts after they were made. Each fault fails the synth
// with an error on the construct at fault:
//   - two event source mappings from one SQS queue to one function
//     (anywhere in the stack): Lambda refuses the second at deploy, and a
//     replaced mapping too, which CloudFormation creates before it deletes
//     the old one;
//   - a mapping from an SQS queue to idemq's function without
//     ReportBatchItemFailures: Lambda would delete every message of a
//     batch the function returns, the records it reported failed or in
//     progress included, whose work is then never done;
//   - replicas of the record table without multi-Region strong
//     consistency (added with TableV2.AddReplica): two regions could
//     both claim one key and both run its work.
//
// checks is an awscdk.IAspect on a construct of its own with no children,
// so it is visited once per synthesis.
type checks struct {
	// functions are idemq's function and, for an Alias or Version, the
	// function it runs.
	functions []awslambda.IFunction
	// table is the record table.
	table awsdynamodb.ITable
}

// addChecks adds c to scope's stack, as the construct Checks in scope.
func addChecks(scope constructs.Construct, c *checks) {
	at := constructs.NewConstruct(scope, jsii.String("Checks"))
	awscdk.Aspects_Of(at).Add(c, &awscdk.AspectOptions{Priority: awscdk.AspectPriority_READONLY()})
}

// Visit checks node's stack (see checks).
func (c *checks) Visit(node constructs.IConstruct) {
	stack := awscdk.Stack_Of(node)
	names := map[string]string{} // a resolved queue ARN or function name → its construct's path
	queues := map[string]bool{}  // the resolved ARNs of the stack's queues
	for _, x := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		switch x := x.(type) {
		case awssqs.IQueue:
			arn := resolved(stack, x.QueueArn())
			names[arn], queues[arn] = *x.Node().Path(), true
		case awslambda.IFunction:
			names[resolved(stack, x.FunctionName())] = *x.Node().Path()
		}
	}
	name := func(resolved string) string {
		if p, ok := names[resolved]; ok {
			return p
		}
		return resolved
	}
	// An SQS source is a queue of the stack, or an SQS ARN given as a
	// string.
	sqs := func(source string) bool { return queues[source] || strings.Contains(source, ":sqs:") }
	var idemq []string
	for _, fn := range c.functions {
		idemq = append(idemq, resolved(stack, fn.FunctionName()))
	}

	groups := map[[2]string][]mapping{}
	var order [][2]string
	for _, m := range mappingsIn(stack) {
		if !sqs(m.source) {
			continue
		}
		key := [2]string{m.source, m.function}
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], m)
		if slices.Contains(idemq, m.function) && !m.reports() {
			addErrorOnce(m.at(), fmt.Sprintf(
				"the event source mapping %s feeds idemq's function %s from the queue %s without ReportBatchItemFailures: Lambda would ignore the function's batch item failures "+
					"and delete every message of a batch it returns, the records it reported failed or in progress included, whose work would then never be done; "+
					"set ReportBatchItemFailures on it (awslambdaeventsources.SqsEventSourceProps.ReportBatchItemFailures), or remove it",
				m.name(), name(m.function), name(m.source)))
		}
	}
	for _, key := range order {
		ms := groups[key]
		if len(ms) < 2 {
			continue
		}
		var paths []string
		for _, m := range ms {
			paths = append(paths, m.name())
		}
		msg := fmt.Sprintf("%d event source mappings from the queue %s to the function %s: %s; Lambda takes one from a queue to a function and refuses the other at deploy "+
			"(CloudFormation creates a replacing mapping before it deletes the old one, so a replaced mapping is refused too): keep one and remove the others; "+
			"idemq takes over a mapping made before NewAttachment, and makes its own under the path CDK's SqsEventSource uses, so a swapped line is updated in place",
			len(ms), name(key[0]), name(key[1]), strings.Join(paths, " and "))
		for _, m := range ms {
			addErrorOnce(m.at(), msg)
		}
	}
	c.checkReplicas(stack)
}

// checkReplicas fails the synth when the record table, a TableV2, has
// replicas without multi-Region strong consistency.
func (c *checks) checkReplicas(stack awscdk.Stack) {
	t, ok := c.table.(awsdynamodb.TableV2)
	if !ok {
		return
	}
	cfn, ok := t.Node().DefaultChild().(awsdynamodb.CfnGlobalTable)
	if !ok || cfn.Replicas() == nil {
		return
	}
	var replicas []struct {
		Region string `json:"region"`
	}
	if err := json.Unmarshal([]byte(resolved(stack, cfn.Replicas())), &replicas); err != nil || len(replicas) < 2 {
		return
	}
	if mode := cfn.MultiRegionConsistency(); mode != nil && *mode == "STRONG" {
		return
	}
	var regions []string
	for _, r := range replicas {
		regions = append(regions, r.Region)
	}
	addErrorOnce(t, fmt.Sprintf(
		"the record table %s has replicas in %s with multi-Region eventual consistency: each region evaluates a claim's condition against its own copy and concurrent writes resolve "+
			"last-writer-wins, so two regions could both claim one key and both run its work; give idemq the replicas' regions (Replicas, and WitnessRegion for a witness) "+
			"for a table with multi-Region strong consistency, instead of adding replicas to the table",
		*t.Node().Path(), strings.Join(regions, ", ")))
}
