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

// grantRedrive lets grantee (an operator's role or user) redrive dlq
// into queue and do nothing else (sqs:StartMessageMoveTask and what it
// needs), in grantee's own policy: the function never redrives, an
// operator does (docs/deploy.md, "Dead letters"). A queue encrypted with a
// customer-managed KMS key needs kms:Decrypt and kms:GenerateDataKey on it
// as well, which it does not grant.
//
// The dead-letter queue's redrive allow policy (which queues may use it as
// their dead-letter queue) is left alone: naming the queue there would
// make each queue refer to the other, a circular dependency CloudFormation
// refuses, unless the queue had a fixed name.
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

// newRedrivePolicy is v0.2.0's managed policy (KeepV020) with
// grantRedrive's statements for dlq into queue, as id in scope, attached
// to nothing.
func newRedrivePolicy(scope constructs.Construct, id string, dlq, queue awssqs.IQueue) awsiam.ManagedPolicy {
	statements := redriveStatements(dlq, queue)
	return awsiam.NewManagedPolicy(scope, jsii.String(id), &awsiam.ManagedPolicyProps{
		Description: jsii.String("idemq: redrive the worker's dead-letter queue into its queue (aws sqs start-message-move-task). Attach it to the operator's role."),
		Statements:  &statements,
	})
}
