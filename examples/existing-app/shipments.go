package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// ShipmentsStackProps configures the team's second stack, whose orders
// arrive on a Kinesis stream.
type ShipmentsStackProps struct {
	awscdk.StackProps
	// Code is the order handler's code, the same as the orders stack's
	// (./function: ORDERS_FROM=kinesis makes it read a Kinesis batch).
	// Required.
	Code awslambda.Code
	// WithoutIdemq leaves idemq out: the app as it was before. Defaults
	// to false.
	WithoutIdemq bool
}

// NewShipmentsStack is the team's stack of orders that arrive on a
// Kinesis stream (a partner's, say, whose producer retries PutRecord):
// the stream, the function that handles each order, fed by its own
// KinesisEventSource, and idemq attached to the stream with
// AttachmentProps.Stream: the record table sized from the stream's
// retention, the record age and the on-failure queue's retention
// (queue.Stream.RecordLifetime), ReportBatchItemFailures, bisection, the
// record age and the on-failure queue on the team's mapping (taken over,
// so the deploy updates it in place), and the alarms.
func NewShipmentsStack(scope constructs.Construct, id *string, props *ShipmentsStackProps) awscdk.Stack {
	stack := awscdk.NewStack(scope, id, &props.StackProps)

	// The team's own stream, function and event source, as they were
	// before idemq.
	events := awskinesis.NewStream(stack, jsii.String("OrderEvents"), &awskinesis.StreamProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(7)),
	})
	handler := awslambda.NewFunction(stack, jsii.String("ShipmentHandler"), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         props.Code,
		Timeout:      awscdk.Duration_Minutes(jsii.Number(1)),
		Environment:  &map[string]*string{"ORDERS_FROM": jsii.String("kinesis")},
	})
	handler.AddEventSource(awslambdaeventsources.NewKinesisEventSource(events, &awslambdaeventsources.KinesisEventSourceProps{
		StartingPosition: awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:        jsii.Number(100),
	}))
	if props.WithoutIdemq {
		return stack
	}

	// idemq, attached to them. A dropped batch's notice (its shard and
	// sequence numbers) goes to the on-failure queue, kept 14 days: the
	// records are sized to replay a redrive read back from the stream.
	failures := awssqs.NewQueue(stack, jsii.String("ShipmentFailures"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	pager := awssns.NewTopic(stack, jsii.String("Pager"), nil)
	idemq := idemqcdk.NewAttachment(stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: handler,
		Stream: &idemqcdk.StreamSource{
			Kinesis:        events,
			OnFailureQueue: failures,
			// A record that keeps failing holds its partition key's
			// later records; after a day it goes to the on-failure queue.
			MaxRecordAge: awscdk.Duration_Days(jsii.Number(1)),
		},
		Request:      &request.Identity{Namespace: "shipments"},
		AlarmActions: &[]awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(pager)},
	})
	awscdk.NewCfnOutput(stack, jsii.String("RecordExpiry"), &awscdk.CfnOutputProps{
		Value: jsii.String(idemq.RecordExpiry.String()),
	})
	return stack
}
