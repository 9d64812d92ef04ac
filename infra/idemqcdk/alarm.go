package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// newDeadLetterAlarm goes off when any message waits in the dead-letter
// queue: a message that failed MaxReceives times. It has no action; add one
// with Worker.DeadLetterAlarm.AddAlarmAction.
func newDeadLetterAlarm(scope constructs.Construct, dlq awssqs.Queue) awscloudwatch.Alarm {
	metric := dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
		Period:    awscdk.Duration_Minutes(jsii.Number(1)),
		Statistic: jsii.String("Maximum"),
	})
	return metric.CreateAlarm(scope, jsii.String("DeadLetterAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription:   jsii.String("Messages in the idemq dead-letter queue: each failed every receive it had."),
		EvaluationPeriods:  jsii.Number(1),
		Threshold:          jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}
