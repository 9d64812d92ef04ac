// Command existing-app is a team's own CDK app in production, with its own
// queue, its own Go Lambda function fed by its own SqsEventSource and its
// own pager topic, and idemq attached to them with idemqcdk.NewAttachment:
// the record table sized from that queue, the function's grants and
// environment, ReportBatchItemFailures on the team's event source mapping
// (taken over, so the deploy updates it in place), the alarms paging the
// team's topic, and the dashboard. docs/deploy.md ("Add idemq to an
// existing app", "Add idemq to an app in production") shows the same code;
// main_test.go checks the template it synthesizes. Its second stack,
// Shipments (shipments.go), attaches idemq to a Kinesis stream the same
// way.
//
// With the context key withoutIdemq true, it is the app as it was before
// idemq (make deploy-local deploys that first, then this).
//
//	cd examples/existing-app && npx cdk synth --strict   # the repository's pinned CLI (npm ci at the root)
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

func main() {
	if err := synth(); err != nil {
		// A refused setting is a synth error, which CDK reports (an app
		// whose cdk.json sets @aws-cdk/core:annotationsInValidationReport
		// has its synth fail with it): say it, not a Go stack trace. (No
		// jsii.Close after a failed CDK call: exiting ends the runtime.)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	jsii.Close()
}

// synth writes the app's cloud assembly where the CLI asks.
func synth() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	app := awscdk.NewApp(nil)
	without := fmt.Sprint(app.Node().TryGetContext(jsii.String("withoutIdemq"))) == "true"
	addStacks(app, without)
	app.Synth(nil)
	return nil
}

// addStacks adds the team's two stacks to app, with idemq or without,
// each with code of its own (CDK refuses an asset shared by two stacks;
// the second build comes from go's cache).
func addStacks(app awscdk.App, withoutIdemq bool) {
	NewOrdersStack(app, jsii.String("Orders"), &OrdersStackProps{Code: idemqcdk.GoCode(".", "./function"), WithoutIdemq: withoutIdemq})
	NewShipmentsStack(app, jsii.String("Shipments"), &ShipmentsStackProps{Code: idemqcdk.GoCode(".", "./function"), WithoutIdemq: withoutIdemq})
}

// OrdersStackProps configures the team's stack.
type OrdersStackProps struct {
	awscdk.StackProps
	// Code is the order handler's code (./function, built for arm64).
	// Required.
	Code awslambda.Code
	// VisibilityTimeout is the orders queue's visibility timeout.
	// Defaults to 6 minutes: 6 × the function's timeout, AWS's guidance.
	VisibilityTimeout awscdk.Duration
	// MaxReceiveCount is how many receives a message gets before it moves
	// to the dead-letter queue. Defaults to 5, AWS's recommendation.
	MaxReceiveCount *float64
	// WithoutIdemq leaves idemq out: the app as it was before. Defaults
	// to false.
	WithoutIdemq bool
}

// NewOrdersStack is the team's stack: the orders queue with its
// dead-letter queue, the function that handles each order, fed by its
// event source, the team's pager topic, and idemq.
func NewOrdersStack(scope constructs.Construct, id *string, props *OrdersStackProps) awscdk.Stack {
	stack := awscdk.NewStack(scope, id, &props.StackProps)
	visibility, receives := props.VisibilityTimeout, props.MaxReceiveCount
	if visibility == nil {
		visibility = awscdk.Duration_Minutes(jsii.Number(6))
	}
	if receives == nil {
		receives = jsii.Number(5)
	}

	// The team's own queue, function, event source and pager topic, as
	// they were before idemq.
	dlq := awssqs.NewQueue(stack, jsii.String("OrdersDLQ"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	orders := awssqs.NewQueue(stack, jsii.String("Orders"), &awssqs.QueueProps{
		VisibilityTimeout: visibility,
		DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: receives},
	})
	handler := awslambda.NewFunction(stack, jsii.String("OrderHandler"), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         props.Code,
		Timeout:      awscdk.Duration_Minutes(jsii.Number(1)),
	})
	handler.AddEventSource(awslambdaeventsources.NewSqsEventSource(orders, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize: jsii.Number(10),
	}))
	pager := awssns.NewTopic(stack, jsii.String("Pager"), nil)
	if props.WithoutIdemq {
		return stack
	}

	// docs:begin (docs/deploy.md, "Add idemq to an existing app", shows these lines)
	// idemq, attached to them: the record table sized from the queue, the
	// function's grants and environment, ReportBatchItemFailures on the
	// event source above (taken over: the deploy updates it in place),
	// the alarms, paging the team's topic, and the dashboard. Synth fails,
	// naming the setting, if the queue cannot be safe for the function.
	idemq := idemqcdk.NewAttachment(stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: handler,
		Queue:    orders,
		// Who a request is: every key's prefix (never change it), and the
		// key in the body's "idempotency_key" (the default).
		Request:      &request.Identity{Namespace: "orders"},
		AlarmActions: &[]awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(pager)},
	})
	awscdk.NewCfnOutput(stack, jsii.String("RecordExpiry"), &awscdk.CfnOutputProps{
		Value: jsii.String(idemq.RecordExpiry.String()),
	})
	// docs:end
	return stack
}
