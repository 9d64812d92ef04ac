package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// newQueues are the work queue and its dead-letter queue, both encrypted
// with SQS-managed keys and refusing requests not made over TLS. The
// dead-letter queue, and its policy, are kept when the stack is deleted or
// the queue replaced (as when idemq:fifo changes), like the table: the
// requests in it failed every receive and await a redrive.
func newQueues(scope constructs.Construct, s settings) (queue, dlq awssqs.Queue) {
	var fifo *bool
	if s.fifo {
		fifo = jsii.Bool(true)
	}
	dlq = awssqs.NewQueue(scope, jsii.String("DeadLetterQueue"), &awssqs.QueueProps{
		Fifo:            fifo,
		RetentionPeriod: seconds(deadLetterRetention),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RemovalPolicy:   awscdk.RemovalPolicy_RETAIN,
	})
	// The TLS-only policy stays with the queue it guards.
	dlq.Node().FindChild(jsii.String("Policy")).Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_RETAIN, nil)
	queue = awssqs.NewQueue(scope, jsii.String("Queue"), &awssqs.QueueProps{
		Fifo:              fifo,
		RetentionPeriod:   seconds(s.retention),
		VisibilityTimeout: seconds(s.visibility),
		DeadLetterQueue: &awssqs.DeadLetterQueue{
			Queue:           dlq,
			MaxReceiveCount: jsii.Number(s.maxReceives),
		},
		Encryption: awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL: jsii.Bool(true),
	})
	return queue, dlq
}
