package idemqcdk

import (
	"fmt"
	"regexp"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// newDeadLetterAlarm goes off when any message waits in the dead-letter
// queue: a message that failed MaxReceives times. It has no action; add one
// with Worker.DeadLetterAlarm.AddAlarmAction (NewStack does, for the topic
// of the idemq:alarmTopicArn context key).
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

// topicARN is an SNS topic's ARN: a name of 1 to 256 letters, digits,
// hyphens and underscores, with .fifo on a FIFO topic.
var topicARN = regexp.MustCompile(`^arn:` + arnPartition + `:sns:` + arnRegion + `:` + arnAccount + `:[A-Za-z0-9_-]{1,256}(\.fifo)?$`)

// checkAlarmTopic accepts "" (no action) or an SNS topic's ARN; the error
// names the context key.
func checkAlarmTopic(arn string) error {
	if arn == "" || topicARN.MatchString(arn) {
		return nil
	}
	return &SettingError{Msg: fmt.Sprintf("%s %q is not an SNS topic's ARN (arn:aws:sns:REGION:ACCOUNT:TOPIC); give the ARN of the topic to notify, or leave it empty for no alarm action",
		ctxAlarmTopicArn, arn)}
}

// notifyTopic makes alarm publish to the SNS topic with the ARN arn when it
// goes off (and not when it recovers).
func notifyTopic(scope constructs.Construct, alarm awscloudwatch.Alarm, arn string) {
	topic := awssns.Topic_FromTopicArn(scope, jsii.String("AlarmTopic"), jsii.String(arn))
	alarm.AddAlarmAction(awscloudwatchactions.NewSnsAction(topic))
}
