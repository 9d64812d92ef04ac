// Package idemqcdk is idemq's AWS CDK constructs, in aws-cdk-go's idiom
// (ids are *string, props are Props structs): the DynamoDB table holding
// the idempotency records, sized from a queue so that no redelivery can
// outlive a record; the bucket of large results; alarms, a dashboard of
// the handler's metrics, and a policy for redriving the dead-letter queue;
// NewAttachment, which adds them to a queue and a Lambda function an app
// already has, with the function's grants, environment and event source;
// and NewWorker, the whole pipeline with its own SQS queue, dead-letter
// queue and function. The table, the bucket and the dead-letter queue are
// kept when the stack is deleted.
//
// To add idemq to a queue and a function an app already has, use
// NewAttachment: it reads the queue's settings and the function's timeout,
// checks them, and adds the record table, the result bucket, the grants,
// the environment, the event source mapping, the alarms, the dashboard and
// the redrive policy:
//
//	idemqcdk.NewAttachment(stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
//		Function: handler, // an awslambda.Function of the app
//		Queue:    orders,  // an awssqs.Queue with a dead-letter queue
//		Request:  &request.Identity{Namespace: "orders"}, // every key's prefix, never to change
//	})
//
// Its parts are constructs of their own: NewRecordTable, NewResultBucket,
// NewAlarms, NewDashboard, NewRedrivePolicy; CheckQueue is its check.
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
// WorkerProps.Check and CheckQueue); a *SettingError names the value to
// change. The functions run on arm64 unless WorkerProps.Architecture
// says otherwise, and code built for another machine is refused. The key
// namespace is required and never derived (a derived one could change, and
// every key with it), the provider URL must be one the worker can use, and
// WorkerProps.Environment takes no IDEMQ_ variable, so none bypasses the
// checks. The record
// expiry is queue.RecordLifetime of the queue's settings, the dead-letter
// queue's retention included, and the function's timeout, the function the
// runtime uses too, and is passed to the function as IDEMQ_RECORD_EXPIRY.
//
// # TableV2, not Table
//
// The table is a TableV2 (AWS::DynamoDB::GlobalTable). It is CDK's
// recommended table construct, and it can gain replicas in other regions
// later as an in-place update. The choice is made once: switching between
// Table (AWS::DynamoDB::Table) and TableV2 changes the resource type, which
// replaces the table and loses every record in it.
package idemqcdk
