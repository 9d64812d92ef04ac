package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// The actions a redrive of the dead-letter queue into the queue takes
// (aws sqs start-message-move-task): starting, listing and cancelling the
// move task, and SQS's receives and deletes on the dead-letter queue, made
// as the caller; the sends to the queue.
var (
	redriveSourceActions = []string{
		"sqs:StartMessageMoveTask", "sqs:ListMessageMoveTasks", "sqs:CancelMessageMoveTask",
		"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes",
	}
	redriveDestinationActions = []string{"sqs:SendMessage"}
)

// RedrivePolicyProps configures a redrive policy (NewRedrivePolicy).
type RedrivePolicyProps struct {
	// Queue is the queue the dead letters go back to. Required.
	Queue awssqs.IQueue
	// DeadLetterQueue is Queue's dead-letter queue. Required.
	DeadLetterQueue awssqs.IQueue
}

// NewRedrivePolicy adds to scope, as the construct id, a managed policy
// allowing a redrive of the dead-letter queue into the queue and nothing
// else (sqs:StartMessageMoveTask and what it needs), attached to nothing:
// the function never redrives, an operator does (docs/deploy.md, "Dead
// letters"); attach it to the operator's role or user. To grant a role of
// the app the same, call grantRedrive (or Attachment.GrantRedrive,
// Worker.GrantRedrive), which adds no managed policy. A queue encrypted
// with a customer-managed KMS key needs kms:Decrypt and
// kms:GenerateDataKey on it as well, which neither grants. It panics if
// props, its Queue or its DeadLetterQueue is nil.
//
// The dead-letter queue's redrive allow policy (which queues may use it as
// their dead-letter queue) is left alone: naming the queue there would
// make each queue refer to the other, a circular dependency CloudFormation
// refuses, unless the queue had a fixed name.
func NewRedrivePolicy(scope constructs.Construct, id *string, props *RedrivePolicyProps) awsiam.ManagedPolicy {
	if props == nil || props.Queue == nil || props.DeadLetterQueue == nil {
		panic("idemqcdk: RedrivePolicyProps.Queue or DeadLetterQueue is nil: give the queue the dead letters go back to and its dead-letter queue")
	}
	return newRedrivePolicy(scope, *id, props.DeadLetterQueue, props.Queue)
}

// grantRedrive lets grantee (an operator's role or user) redrive dlq
// into queue and do nothing else: the statements of NewRedrivePolicy,
// added to grantee's own policy.
func grantRedrive(grantee awsiam.IGrantable, dlq, queue awssqs.IQueue) {
	for _, st := range redriveStatements(dlq, queue) {
		grantee.GrantPrincipal().AddToPrincipalPolicy(st)
	}
}

// redriveStatements allow a redrive of dlq into queue.
func redriveStatements(dlq, queue awssqs.IQueue) []awsiam.PolicyStatement {
	return []awsiam.PolicyStatement{
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("RedriveFromDeadLetterQueue"),
			Actions:   jsii.Strings(redriveSourceActions...),
			Resources: &[]*string{dlq.QueueArn()},
		}),
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("RedriveToQueue"),
			Actions:   jsii.Strings(redriveDestinationActions...),
			Resources: &[]*string{queue.QueueArn()},
		}),
	}
}

// newRedrivePolicy is NewRedrivePolicy's policy for dlq into queue, as id
// in scope.
func newRedrivePolicy(scope constructs.Construct, id string, dlq, queue awssqs.IQueue) awsiam.ManagedPolicy {
	statements := redriveStatements(dlq, queue)
	return awsiam.NewManagedPolicy(scope, jsii.String(id), &awsiam.ManagedPolicyProps{
		Description: jsii.String("idemq: redrive the worker's dead-letter queue into its queue (aws sqs start-message-move-task). Attach it to the operator's role."),
		Statements:  &statements,
	})
}
