package idemqcdk

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// ageFactor times the visibility timeout (plus the batching window) is the
// age of the oldest message that sets off the age alarm: time for two
// retries of a failed message, so an alarm means the queue is falling
// behind or a message keeps failing.
const ageFactor = 2

// durationFactor times the function's timeout is the invocation duration
// that sets off the duration alarm: an invocation that long leaves little
// room before a timeout, which fails its whole batch.
const durationFactor = 0.8

// alarmPeriod is the period of every alarm but the dead-letter alarm's
// (a minute: a dead letter is news at once).
const alarmPeriod = 5 * time.Minute

// Alarms are the seven alarms of a queue feeding a function that runs
// idemq's handler, or the six of a stream (StreamSource: IteratorAgeAlarm
// and OnFailureAlarm in place of the first three), each evaluated over one
// period, none with an action, missing data not breaching (a quiet queue,
// or a function not invoked, is fine). Each goes off when its statistic is
// at or over its threshold:
//   - DeadLetterAlarm: any message in the dead-letter queue (each failed
//     every receive it had), the maximum over a minute;
//   - DeadLetterExpiryAlarm: the oldest dead letter halfway through the
//     time it is sure to be kept (the dead-letter queue's retention, less
//     the queue's on a standard queue), before SQS drops it;
//   - AgeAlarm: the oldest message waiting longer than 2 ×
//     (visibility timeout + batching window);
//   - IteratorAgeAlarm (a stream): the mapping reading a quarter as far
//     behind as a record may get before it is dropped (at most an hour,
//     at least 2 × (batching window + timeout)): a Kinesis stream's
//     GetRecords.IteratorAgeMilliseconds, the function's IteratorAge for
//     a table's stream;
//   - OnFailureAlarm (a stream): any notice of a dropped batch in the
//     on-failure queue, or published to the on-failure topic;
//   - FailedAlarm: any record failed (the handler's Failed EMF metric in
//     metricNamespace, dimension Service = the key namespace: the
//     function's error, a provider's 429 or 5xx, the store out of reach, a
//     message without a usable key), which the batch response reports
//     record by record, so no function error shows it;
//   - DurationAlarm: an invocation that took 80% of the function's
//     timeout;
//   - ErrorsAlarm: any function error (the whole batch failed: a crash, a
//     timeout or a bad configuration);
//   - ThrottlesAlarm: any throttled invocation.
//
// docs/operate.md says what each means and what to do.
type Alarms struct {
	// Construct is the scope holding the alarms.
	Construct constructs.Construct

	// The alarms, each named as its construct id; a queue's three are nil
	// for a stream, a stream's two for a queue.
	DeadLetterAlarm, DeadLetterExpiryAlarm, AgeAlarm, FailedAlarm, DurationAlarm, ErrorsAlarm, ThrottlesAlarm awscloudwatch.Alarm
	IteratorAgeAlarm, OnFailureAlarm                                                                          awscloudwatch.Alarm
}

// All are the alarms there are (seven for a queue, six for a stream), in
// the order the type documents them.
func (a *Alarms) All() []awscloudwatch.Alarm { return a.present() }

// parts are what the alarms and the dashboard watch: the queue, its
// dead-letter queue, the function, the key namespace and the settings.
type parts struct {
	queue, dlq awssqs.IQueue
	fn         awslambda.IFunction
	namespace  string
	s          settings
	// stream and src are a stream's, in place of queue and dlq.
	stream *streamParts
	src    *StreamSource
}

// addAlarms adds p's alarms to scope (see Alarms), each doing actions
// when it goes off.
func addAlarms(scope constructs.Construct, p parts, actions []awscloudwatch.IAlarmAction) *Alarms {
	s := p.s
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
	a := &Alarms{Construct: scope}
	failedThen := "each comes back after the visibility timeout and, after its last receive, goes to the dead-letter queue"
	if p.stream != nil {
		a.addStreamAlarms(p, alarm, period)
		failedThen = "each holds the later records of its partition key until it succeeds or its retries or age run out"
	} else {
		a.addQueueAlarms(p, alarm, maximum, period)
	}
	a.FailedAlarm = alarm("FailedAlarm",
		"Records of the idemq worker failed (the function's error, a provider's 429 or 5xx, the record store out of reach, a message without a usable key): "+
			failedThen+". The function's log says why.",
		emfMetric("Failed", p.namespace, sum), 1)
	limit := time.Duration(durationFactor * float64(s.timeout))
	a.DurationAlarm = alarm("DurationAlarm", fmt.Sprintf(
		"An invocation of the idemq function took %s, %.0f%% of its timeout %s: a longer one times out and fails its whole batch. Raise the timeout or lower the batch size.",
		limit, durationFactor*100, s.timeout),
		p.fn.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), float64(limit.Milliseconds()))
	a.ErrorsAlarm = alarm("ErrorsAlarm", "The idemq function failed a whole batch (a crash, a timeout or a bad configuration); the batch comes back.",
		p.fn.MetricErrors(sum), 1)
	a.ThrottlesAlarm = alarm("ThrottlesAlarm", "Invocations of the idemq function were throttled: raise its concurrency or lower the event source's.",
		p.fn.MetricThrottles(sum), 1)
	for _, x := range a.All() {
		for _, action := range actions {
			x.AddAlarmAction(action)
		}
	}
	return a
}

// addQueueAlarms adds a queue's three alarms to a (see Alarms).
func (a *Alarms) addQueueAlarms(p parts, alarm func(id, description string, metric awscloudwatch.Metric, threshold float64) awscloudwatch.Alarm,
	maximum *awscloudwatch.MetricOptions, period awscdk.Duration) {
	s := p.s
	age := ageFactor * (s.visibility + s.window)
	stay := s.deadLetterStay()
	expiryAge := deadLetterExpiryAge(stay)
	a.DeadLetterAlarm = alarm("DeadLetterAlarm", "Messages in the idemq dead-letter queue: each failed every receive it had.",
		p.dlq.MetricApproximateNumberOfMessagesVisible(maximum), 1)
	a.DeadLetterExpiryAlarm = alarm("DeadLetterExpiryAlarm", fmt.Sprintf(
		"The oldest message in the idemq dead-letter queue moved there %s ago; SQS may drop it %s after it moved (sooner if it was old when it moved: it keeps its first enqueue time on a standard queue). Redrive it or save it now.",
		expiryAge, stay),
		p.dlq.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), expiryAge.Seconds())
	a.AgeAlarm = alarm("AgeAlarm", fmt.Sprintf("The oldest message in the idemq queue has waited %s (2 × (visibility timeout + batching window)): the worker is falling behind or a message keeps failing.", age),
		p.queue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}), age.Seconds())
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

// topicAction publishes to the SNS topic with the ARN arn, imported into
// scope as AlarmTopic.
func topicAction(scope constructs.Construct, arn string) awscloudwatch.IAlarmAction {
	return awscloudwatchactions.NewSnsAction(awssns.Topic_FromTopicArn(scope, jsii.String("AlarmTopic"), jsii.String(arn)))
}

// addStreamAlarms adds the alarms of a stream attachment: iterator age
// and the on-failure destination's notices beside the handler's failed
// records and the function's duration, errors and throttles.
func (a *Alarms) addStreamAlarms(p parts, alarm func(id, description string, metric awscloudwatch.Metric, threshold float64) awscloudwatch.Alarm, period awscdk.Duration) {
	st, s := p.stream, p.s
	maximum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}
	age := iteratorAgeLimit(st.stream, s)
	metric := iteratorAgeMetric(p, maximum)
	a.IteratorAgeAlarm = alarm("IteratorAgeAlarm", fmt.Sprintf(
		"The idemq function reads %s %s behind: it is falling behind, or a record keeps failing and holds its shard's checkpoint; a record is dropped to the on-failure destination at the age of %s.",
		st.kind, age, st.reachText()), metric, float64(age.Milliseconds()))
	switch {
	case st.failQueue != nil:
		a.OnFailureAlarm = alarm("OnFailureAlarm", "Notices of dropped batches in the idemq on-failure queue: records whose retries or age ran out, with their work undone. Re-drive them while the stream keeps them.",
			st.failQueue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: awscdk.Duration_Minutes(jsii.Number(1)), Statistic: jsii.String("Maximum")}), 1)
	case st.failTopic != nil:
		a.OnFailureAlarm = alarm("OnFailureAlarm", "Notices of dropped batches sent to the idemq on-failure topic: records whose retries or age ran out, with their work undone. Re-drive them while the stream keeps them.",
			st.failTopic.MetricNumberOfMessagesPublished(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}), 1)
	}
}

// present is a's alarms that exist, in the order Alarms documents.
func (a *Alarms) present() []awscloudwatch.Alarm {
	all := []awscloudwatch.Alarm{a.DeadLetterAlarm, a.DeadLetterExpiryAlarm, a.AgeAlarm, a.IteratorAgeAlarm, a.OnFailureAlarm, a.FailedAlarm, a.DurationAlarm, a.ErrorsAlarm, a.ThrottlesAlarm}
	return slices.DeleteFunc(all, func(x awscloudwatch.Alarm) bool { return x == nil })
}

// iteratorAgeMetric is how far behind the function reads p's stream: a
// Kinesis stream's GetRecords.IteratorAgeMilliseconds, the function's
// IteratorAge for a table's stream.
func iteratorAgeMetric(p parts, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	if p.src.Kinesis != nil {
		return p.src.Kinesis.MetricGetRecordsIteratorAgeMilliseconds(opts)
	}
	return p.fn.Metric(jsii.String("IteratorAge"), opts)
}
