package idemqcdk

import (
	"fmt"
	"regexp"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// ageFactor times the visibility timeout (plus the batching window) is the
// age of the oldest message that sets off the age alarm: time for two
// retries of a failed message, so an alarm means the queue is falling
// behind or a message keeps failing.
const ageFactor = 2

// deadLetterExpiryAge is the age in the dead-letter queue at which the
// dead-letter expiry alarm goes off for a queue whose dead letters are
// sure to stay stay: half of it, to the minute, and at least a minute.
func deadLetterExpiryAge(stay time.Duration) time.Duration {
	return max((stay / 2).Truncate(time.Minute), time.Minute)
}

// durationFactor times the function's timeout is the invocation duration
// that sets off the duration alarm: an invocation that long leaves little
// room before a timeout, which fails its whole batch.
const durationFactor = 0.8

// alarmPeriod is the period of every alarm but the dead-letter alarm's
// (a minute: a dead letter is news at once).
const alarmPeriod = 5 * time.Minute

// newAlarms adds w's alarms, each evaluated over one period and none with
// an action (NewStack gives each the topic of idemq:alarmTopicArn). Each
// goes off when its statistic is at or over its threshold:
//   - DeadLetterAlarm: any message in the dead-letter queue (each failed
//     every receive it had), the maximum over a minute;
//   - DeadLetterExpiryAlarm: the oldest dead letter halfway through the
//     time it is sure to be kept (settings.deadLetterStay), before SQS
//     drops it;
//   - AgeAlarm: the oldest message waiting longer than ageFactor ×
//     (visibility timeout + batching window);
//   - FailedAlarm: any record failed (the handler's Failed EMF metric:
//     the function's error, a provider's 429 or 5xx, the store out of
//     reach, a message without a usable key), which the batch response
//     reports record by record, so no function error shows it;
//   - DurationAlarm: an invocation that took durationFactor of the
//     function's timeout;
//   - ErrorsAlarm: any function error (the whole batch failed: a crash, a
//     timeout or a bad configuration);
//   - ThrottlesAlarm: any throttled invocation.
//
// Missing data is not breaching: a quiet queue, or a function not
// invoked, is fine.
func newAlarms(scope constructs.Construct, w *Worker, s settings, namespace string) {
	period := seconds(alarmPeriod)
	alarm := func(id, description string, metric awscloudwatch.Metric, threshold float64) awscloudwatch.Alarm {
		return metric.CreateAlarm(scope, jsii.String(id), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription:   jsii.String(description),
			EvaluationPeriods:  jsii.Number(1),
			Threshold:          jsii.Number(threshold),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
	}
	maximum := &awscloudwatch.MetricOptions{Period: awscdk.Duration_Minutes(jsii.Number(1)), Statistic: jsii.String("Maximum")}
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	age := ageFactor * (s.visibility + s.window)
	stay := s.deadLetterStay()
	expiryAge := deadLetterExpiryAge(stay)
	w.DeadLetterAlarm = alarm("DeadLetterAlarm", "Messages in the idemq dead-letter queue: each failed every receive it had.",
		w.DeadLetterQueue.MetricApproximateNumberOfMessagesVisible(maximum), 1)
	w.DeadLetterExpiryAlarm = alarm("DeadLetterExpiryAlarm", fmt.Sprintf(
		"The oldest message in the idemq dead-letter queue moved there %s ago; SQS may drop it %s after it moved (sooner if it was old when it moved: it keeps its first enqueue time on a standard queue). Redrive it or save it now.",
		expiryAge, stay),
		w.DeadLetterQueue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), expiryAge.Seconds())
	w.AgeAlarm = alarm("AgeAlarm", fmt.Sprintf("The oldest message in the idemq queue has waited %s (2 × (visibility timeout + batching window)): the worker is falling behind or a message keeps failing.", age),
		w.Queue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), age.Seconds())
	w.FailedAlarm = alarm("FailedAlarm",
		"Records of the idemq worker failed (the function's error, a provider's 429 or 5xx, the record store out of reach, a message without a usable key): "+
			"each comes back after the visibility timeout and, after its last receive, goes to the dead-letter queue. The function's log says why.",
		emfMetric("Failed", namespace, sum), 1)
	limit := time.Duration(durationFactor * float64(s.timeout))
	w.DurationAlarm = alarm("DurationAlarm", fmt.Sprintf(
		"An invocation of the idemq function took %s, %.0f%% of its timeout %s: a longer one times out and fails its whole batch. Raise the timeout or lower the batch size.",
		limit, durationFactor*100, s.timeout),
		w.Function.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), float64(limit.Milliseconds()))
	w.ErrorsAlarm = alarm("ErrorsAlarm", "The idemq function failed a whole batch (a crash, a timeout or a bad configuration); the batch comes back.",
		w.Function.MetricErrors(sum), 1)
	w.ThrottlesAlarm = alarm("ThrottlesAlarm", "Invocations of the idemq function were throttled: raise its concurrency or lower the event source's.",
		w.Function.MetricThrottles(sum), 1)
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

// notifyTopic makes each alarm publish to the SNS topic with the ARN arn
// when it goes off (and not when it recovers).
func notifyTopic(scope constructs.Construct, alarms []awscloudwatch.Alarm, arn string) {
	action := awscloudwatchactions.NewSnsAction(awssns.Topic_FromTopicArn(scope, jsii.String("AlarmTopic"), jsii.String(arn)))
	for _, a := range alarms {
		a.AddAlarmAction(action)
	}
}
