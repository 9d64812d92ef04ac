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

// newRedrivePolicy is the managed policy allowing a redrive of dlq into
// queue and nothing else, attached to nothing: the function never
// redrives, an operator does (docs/deploy.md, "Dead letters"). The
// queues' encryption is SQS-managed, so no KMS grant is needed.
//
// The dead-letter queue's redrive allow policy (which queues may use it as
// their dead-letter queue) stays SQS's default, any queue of the account
// and region: naming the queue there would make each queue refer to the
// other, a circular dependency CloudFormation refuses, unless the queue
// had a fixed name.
func newRedrivePolicy(scope constructs.Construct, dlq, queue awssqs.Queue) awsiam.ManagedPolicy {
	return awsiam.NewManagedPolicy(scope, jsii.String("RedrivePolicy"), &awsiam.ManagedPolicyProps{
		Description: jsii.String("idemq: redrive the worker's dead-letter queue into its queue (aws sqs start-message-move-task). Attach it to the operator's role."),
		Statements: &[]awsiam.PolicyStatement{
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
		},
	})
}
