// Package idemqcdk is the AWS CDK construct that deploys an idemq worker:
// the SQS queue and its dead-letter queue, the Lambda function fed by it, and
// the DynamoDB table holding the idempotency records, sized so that no
// redelivery can outlive a record; with alarms, a dashboard of the
// handler's metrics, and a policy for redriving the dead-letter queue. The
// table and the dead-letter queue are kept when the stack is deleted.
//
// Use Worker in your own CDK app:
//
//	idemqcdk.NewWorker(stack, "Worker", &idemqcdk.WorkerProps{
//		Code:        idemqcdk.GoCode(".", "./lambda"),
//		Namespace:   "jobs", // required: every key's prefix, never to change
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
// WorkerProps.Check); a *SettingError names the value to change. The key
// namespace is required and never derived (a derived one could change, and
// every key with it), the provider URL must be one the worker can use, and
// WorkerProps.Environment takes no IDEMQ_ variable, so none bypasses the
// checks. The record
// expiry is queue.RecordLifetime of the queue's settings, the dead-letter
// queue's retention included, the function the runtime uses too, and is
// passed to the function as IDEMQ_RECORD_EXPIRY.
//
// # TableV2, not Table
//
// The table is a TableV2 (AWS::DynamoDB::GlobalTable). It is CDK's
// recommended table construct, and it can gain replicas in other regions
// later as an in-place update. The choice is made once: switching between
// Table (AWS::DynamoDB::Table) and TableV2 changes the resource type, which
// replaces the table and loses every record in it.
package idemqcdk
