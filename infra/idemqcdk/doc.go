// Package idemqcdk is idemq's AWS CDK constructs, in aws-cdk-go's idiom
// (ids are *string, props are Props structs): the DynamoDB table holding
// the idempotency records, sized from a queue so that no redelivery can
// outlive a record; the bucket of large results; alarms, a dashboard of
// the handler's metrics, and a grant for redriving the dead-letter queue;
// NewAttachment, which adds them to a queue (or a Kinesis stream or a
// table's stream: StreamSource) and a Lambda function an app already has,
// with the function's grants, environment and event source;
// and NewWorker, the whole pipeline with its own SQS queue, dead-letter
// queue and function. The table, the bucket and the dead-letter queue are
// kept when the stack is deleted.
//
// To add idemq to a queue and a function an app already has, use
// NewAttachment: it reads the queue's settings and the function's timeout,
// checks them, and adds the record table, the grants, the environment,
// ReportBatchItemFailures on the app's own event source mapping (taken
// over: the deploy updates it in place) or a mapping of its own, the
// alarms and the dashboard; the result bucket, alarm actions, a
// concurrency cap and table replicas only when asked:
//
//	idemqcdk.NewAttachment(stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
//		Function: handler, // an awslambda.Function of the app
//		Queue:    orders,  // an awssqs.Queue with a dead-letter queue
//		Request:  &request.Identity{Namespace: "orders"}, // every key's prefix, never to change
//	})
//
// CheckQueue is its check of a queue's settings.
//
// For the whole pipeline (its own queues and function too), use NewWorker,
// built from the same parts:
//
//	idemqcdk.NewWorker(stack, jsii.String("Worker"), &idemqcdk.WorkerProps{
//		Code:        idemqcdk.GoCode(".", "./cmd/worker"), // your main package, relative to where the app runs
//		Request:     request.Identity{Namespace: "jobs"}, // required: every key's prefix, never to change
//		ProviderURL: "https://api.openai.com/v1",
//		Timeout:     30 * time.Second,
//	})
//
// or NewStack, the stack this repository's cdk.json deploys, which reads the
// same settings from the idemq:* context keys.
//
// # What is checked at synth
//
// The settings are resolved and checked before anything is created (see
// WorkerProps.Check and CheckQueue). A setting that cannot be deployed is
// a synth error on the construct (awscdk.Annotations.AddError), naming the
// value to change and the change that fixes it, so `cdk synth` fails with
// it and no Go stack; a setting that deploys but costs something is a
// warning with its own id (the Warning constants), which `cdk synth
// --strict` refuses and AcknowledgeWarning accepts alone. Only nil where
// nothing can be made panics. The functions run on arm64 unless
// WorkerProps.Architecture says otherwise, and code built for another
// machine is refused. The key namespace is required and never derived (a
// derived one could change, and every key with it), the provider URL must
// be one the worker can use, and WorkerProps.Environment takes no IDEMQ_
// variable, so none bypasses the checks. The record expiry is
// queue.RecordLifetime of the queue's settings, the dead-letter queue's
// retention included, and the function's timeout, the function the runtime
// uses too, and is passed to the function as IDEMQ_RECORD_EXPIRY.
//
// At synth, once the app's code has run, an Attachment and a Worker check
// their whole stack too: two event source mappings from one SQS queue to
// one function (Lambda refuses the second, and a replaced one, which
// CloudFormation creates before it deletes the old), a mapping to idemq's
// function without ReportBatchItemFailures, replicas of the record table
// without multi-Region strong consistency.
//
// # The record table
//
// The table is an awsdynamodb.Table (AWS::DynamoDB::Table), or a TableV2
// (AWS::DynamoDB::GlobalTable) with multi-Region strong consistency when
// Replicas are asked for: a claim's conditional write then holds across
// regions, which an eventually consistent replica's does not. v0.2.0 made
// a TableV2 in one region: KeepV020 keeps it, for a stack v0.2.0 deployed.
// Whatever its kind, the table has the same logical id, so a change of
// kind is one CloudFormation refuses before it changes anything, rather
// than a new table that would forget every record.
package idemqcdk
