package idemqcdk

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// dailyRange is how far back the dashboard's per-day widgets look,
// whatever the dashboard's time range (an ISO 8601 duration).
const dailyRange = "-P14D"

// newDashboard is the CloudWatch dashboard of p (a queue feeding a
// function that runs idemq's handler), as id in scope: the states of
// alarms; the records by outcome (the handler's EMF counts); the records
// per day stacked by class and the provider calls avoided per day against
// the function's runs; the queue's messages and its oldest one's age (a
// stream's iterator age); the dead letters and the oldest one's age
// against the expiry alarm's threshold (a stream's on-failure notices);
// the function's invocations, errors, throttles and
// concurrency; its duration against the duration alarm's threshold and
// the timeout (docs/operate.md).
func newDashboard(scope constructs.Construct, id string, p parts, alarmList []awscloudwatch.Alarm) awscloudwatch.Dashboard {
	s, ns := p.s, p.namespace
	period := seconds(alarmPeriod)
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	maximum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}
	duration := func(stat string) awscloudwatch.IMetric {
		return p.fn.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String(stat)})
	}
	metrics := func(m ...awscloudwatch.IMetric) *[]awscloudwatch.IMetric { return &m }
	line := func(value float64, label string) *[]*awscloudwatch.HorizontalAnnotation {
		return &[]*awscloudwatch.HorizontalAnnotation{{Value: jsii.Number(value), Label: jsii.String(label)}}
	}
	var records []awscloudwatch.IMetric
	for _, name := range emfMetrics {
		records = append(records, emfMetric(name, ns, sum))
	}
	day := awscdk.Duration_Days(jsii.Number(1))
	daily := func(name, label string) awscloudwatch.IMetric {
		return emfMetric(name, ns, &awscloudwatch.MetricOptions{Period: day, Statistic: jsii.String("Sum"), Label: jsii.String(label)})
	}
	var classes []awscloudwatch.IMetric
	for _, c := range emfClasses {
		classes = append(classes, daily(c.name, c.label))
	}
	var alarms []interfacesawscloudwatch.IAlarmRef
	for _, a := range alarmList {
		alarms = append(alarms, a)
	}
	expiry := deadLetterExpiryAge(s.deadLetterStay())
	limit := durationFactor * float64(s.timeout.Milliseconds())

	d := awscloudwatch.NewDashboard(scope, jsii.String(id), nil)
	d.AddWidgets(awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
		Title: jsii.String("idemq worker " + ns + ": alarms"), Alarms: &alarms, Width: jsii.Number(24), Height: jsii.Number(3),
	}))
	d.AddWidgets(
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Records by outcome (" + metricNamespace + " metrics, Service " + ns + ")"),
			Left:  &records, Width: jsii.Number(12), Height: jsii.Number(6),
		}),
		sourceWidget(p, maximum),
	)
	d.AddWidgets(
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Records per day by class, stacked (the top is every record)"),
			Left:  &classes, Stacked: jsii.Bool(true), Period: day, Start: jsii.String(dailyRange),
			Width: jsii.Number(12), Height: jsii.Number(6),
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Provider calls avoided per day (duplicates answered without running the function), and the function's runs"),
			Left: metrics(daily(emfAvoided, "provider calls avoided (replays, copies, cache hits)"),
				daily("Executed", "function runs (fresh executions and take-overs)")),
			Period: day, Start: jsii.String(dailyRange), Width: jsii.Number(12), Height: jsii.Number(6),
		}),
	)
	d.AddWidgets(
		failureWidget(p, maximum, line(expiry.Seconds(), fmt.Sprintf("dead-letter expiry alarm (%s)", expiry))),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Invocations, errors, throttles, concurrency"),
			Left: metrics(p.fn.MetricInvocations(sum), p.fn.MetricErrors(sum), p.fn.MetricThrottles(sum),
				p.fn.Metric(jsii.String("ConcurrentExecutions"), maximum)),
			Width: jsii.Number(12), Height: jsii.Number(6),
		}),
	)
	d.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Duration (ms): p50, p99, maximum"),
		Left:  metrics(duration("p50"), duration("p99"), duration("Maximum")),
		LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{
			{Value: jsii.Number(limit), Label: jsii.String(fmt.Sprintf("duration alarm (%.0f%% of the timeout)", durationFactor*100))},
			{Value: jsii.Number(float64(s.timeout.Milliseconds())), Label: jsii.String("timeout")},
		},
		Width: jsii.Number(24), Height: jsii.Number(6),
	}))
	return d
}

// sourceWidget graphs the queue's messages waiting and in flight and the
// oldest one's age; for a stream, how far behind the function reads it,
// against the iterator age alarm's threshold.
func sourceWidget(p parts, maximum *awscloudwatch.MetricOptions) awscloudwatch.GraphWidget {
	if p.stream != nil {
		limit := iteratorAgeLimit(p.stream.stream, p.s)
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Stream: how far behind the function reads it (iterator age, ms)"),
			Left:  &[]awscloudwatch.IMetric{iteratorAgeMetric(p, maximum)},
			LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{
				{Value: jsii.Number(float64(limit.Milliseconds())), Label: jsii.String(fmt.Sprintf("iterator age alarm (%s)", limit))}},
			Width: jsii.Number(12), Height: jsii.Number(6),
		})
	}
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Queue: messages waiting and in flight; the oldest's age (s, right)"),
		Left:  &[]awscloudwatch.IMetric{p.queue.MetricApproximateNumberOfMessagesVisible(maximum), p.queue.MetricApproximateNumberOfMessagesNotVisible(maximum)},
		Right: &[]awscloudwatch.IMetric{p.queue.MetricApproximateAgeOfOldestMessage(maximum)}, Width: jsii.Number(12), Height: jsii.Number(6),
	})
}

// failureWidget graphs the dead letters and the oldest one's age against
// expiry, the dead-letter expiry alarm's line; for a stream, the notices
// of dropped batches its on-failure destination holds or was sent.
func failureWidget(p parts, maximum *awscloudwatch.MetricOptions, expiry *[]*awscloudwatch.HorizontalAnnotation) awscloudwatch.GraphWidget {
	if p.stream != nil {
		var notices []awscloudwatch.IMetric
		switch {
		case p.stream.failQueue != nil:
			notices = append(notices, p.stream.failQueue.MetricApproximateNumberOfMessagesVisible(maximum))
		case p.stream.failTopic != nil:
			notices = append(notices, p.stream.failTopic.MetricNumberOfMessagesPublished(&awscloudwatch.MetricOptions{Period: maximum.Period, Statistic: jsii.String("Sum")}))
		}
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Dropped batches: notices at the on-failure destination"),
			Left:  &notices, Width: jsii.Number(12), Height: jsii.Number(6),
		})
	}
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title:            jsii.String("Dead letters; the oldest's age (s, right)"),
		Left:             &[]awscloudwatch.IMetric{p.dlq.MetricApproximateNumberOfMessagesVisible(maximum)},
		Right:            &[]awscloudwatch.IMetric{p.dlq.MetricApproximateAgeOfOldestMessage(maximum)},
		RightAnnotations: expiry,
		Width:            jsii.Number(12), Height: jsii.Number(6),
	})
}
