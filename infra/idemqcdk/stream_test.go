package idemqcdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// streamApp is a team's own stack with a Kinesis stream keeping records
// 48 hours, a table with a stream, an on-failure queue keeping messages
// 14 days, a topic, and a one-minute function.
type streamApp struct {
	stack    awscdk.Stack
	kinesis  awskinesis.Stream
	table    awsdynamodb.Table
	failures awssqs.Queue
	topic    awssns.Topic
	function awslambda.Function
}

func newStreamApp(t *testing.T) streamApp {
	t.Helper()
	a := streamApp{stack: awscdk.NewStack(newApp(t, nil), jsii.String("Team"), nil)}
	a.kinesis = awskinesis.NewStream(a.stack, jsii.String("Orders"), &awskinesis.StreamProps{RetentionPeriod: awscdk.Duration_Hours(jsii.Number(48))})
	a.table = awsdynamodb.NewTable(a.stack, jsii.String("Accounts"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("pk"), Type: awsdynamodb.AttributeType_STRING},
		Stream:       awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES,
	})
	a.failures = awssqs.NewQueue(a.stack, jsii.String("Failures"), &awssqs.QueueProps{RetentionPeriod: awscdk.Duration_Days(jsii.Number(14))})
	a.topic = awssns.NewTopic(a.stack, jsii.String("FailureTopic"), nil)
	a.function = awslambda.NewFunction(a.stack, jsii.String("Handler"), &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_PROVIDED_AL2023(),
		Handler: jsii.String("bootstrap"),
		Code:    awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		Timeout: awscdk.Duration_Minutes(jsii.Number(1)),
	})
	return a
}

// TestStreamAttachmentKinesis attaches idemq to a team's Kinesis stream
// and function: the record expiry is queue.Stream's RecordLifetime of the
// stream's retention, the record age and the on-failure queue's retention;
// the mapping (made under the path CDK's KinesisEventSource gives it) has
// ReportBatchItemFailures, the bisection, the record age and the
// destination, and Lambda's own unlimited retries; the function gets no
// IDEMQ_QUEUE and no back-off; the six alarms watch the stream's iterator
// age and the on-failure queue; exactly idemq's grants and CDK's stream
// read and queue send; no synth note.
func TestStreamAttachmentKinesis(t *testing.T) {
	app := newStreamApp(t)
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Request: &request.Identity{Namespace: "orders"},
		Stream: &idemqcdk.StreamSource{Kinesis: app.kinesis, OnFailureQueue: app.failures, MaxRecordAge: awscdk.Duration_Hours(jsii.Number(6))},
	})
	want := queue.Stream{Retention: 48 * time.Hour, MaxRetryAttempts: -1, MaxRecordAge: 6 * time.Hour, OnFailureRetention: 14 * 24 * time.Hour}
	if a.Stream != want || a.Settings != (queue.Settings{}) {
		t.Errorf("Stream %+v, Settings %+v; want the stream's %+v and no queue's", a.Stream, a.Settings, want)
	}
	// A record is read until it is 6h old, run by 6h1m; its notice, kept
	// 14 days, can re-drive it while the stream keeps it (48h), and the
	// copy lives 6h1m: 54h1m; + 13h30m15s, rounded up.
	if life := must(want.RecordLifetime(time.Minute)); a.RecordExpiry != life || life != 67*time.Hour+32*time.Minute {
		t.Errorf("RecordExpiry %s, want %s (67h32m0s)", a.RecordExpiry, life)
	}
	tpl := assertions.Template_FromStack(app.stack, nil)
	id := func(typ string, props any) string { return *tpl.GetResourceId(jsii.String(typ), props) }
	var table, stream, failures, fn string
	check(t, "resource ids", func() {
		table = id("AWS::DynamoDB::Table", obj{"Properties": obj{"TimeToLiveSpecification": assertions.Match_AnyValue()}})
		stream, failures, fn = id("AWS::Kinesis::Stream", nil), id("AWS::SQS::Queue", nil), id("AWS::Lambda::Function", nil)
	})
	check(t, "environment: no queue's settings, no back-off", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": assertions.Match_ObjectEquals(&obj{
				"IDEMQ_TABLE":         ref(table),
				"IDEMQ_RECORD_EXPIRY": "67h32m0s",
				"IDEMQ_CLOCK_SKEW":    "500ms",
				"IDEMQ_BACKOFF":       "false",
				"IDEMQ_KEY_FIELD":     "idempotency_key",
				"IDEMQ_NAMESPACE":     "orders",
				"IDEMQ_EMF_NAMESPACE": "idemq",
			})},
		})
	})
	check(t, "the mapping", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), assertions.Match_ObjectEquals(&obj{
			"EventSourceArn":             getAtt(stream, "Arn"),
			"FunctionName":               ref(fn),
			"StartingPosition":           "TRIM_HORIZON",
			"FunctionResponseTypes":      arr{"ReportBatchItemFailures"},
			"BisectBatchOnFunctionError": true,
			"MaximumRecordAgeInSeconds":  21600,
			"DestinationConfig":          obj{"OnFailure": obj{"Destination": getAtt(failures, "Arn")}},
		}))
	})
	mapping := id("AWS::Lambda::EventSourceMapping", nil)
	if !strings.HasPrefix(mapping, "HandlerKinesisEventSource") {
		t.Errorf("the mapping's logical id %s is not the one CDK's KinesisEventSource gives it (HandlerKinesisEventSource...)", mapping)
	}
	check(t, "six alarms: iterator age (an hour: a quarter of 6h, at most an hour), on-failure notices", func() {
		tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(6))
		tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
			"MetricName": "GetRecords.IteratorAgeMilliseconds", "Namespace": "AWS/Kinesis", "Threshold": 3600000,
			"Dimensions": arr{obj{"Name": "StreamName", "Value": ref(stream)}},
		})
		tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
			"MetricName": "ApproximateNumberOfMessagesVisible", "Threshold": 1,
			"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(failures, "QueueName")}},
		})
		tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Dashboard"), jsii.Number(1))
	})
	body := jsonString(tpl.FindResources(jsii.String("AWS::CloudWatch::Dashboard"), nil))
	for _, want := range []string{"Stream: how far behind the function reads it", "GetRecords.IteratorAgeMilliseconds", "iterator age alarm (1h0m0s)",
		"Dropped batches: notices at the on-failure destination", "ApproximateNumberOfMessagesVisible"} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard does not show %q", want)
		}
	}
	if strings.Contains(body, "Dead letters") || strings.Contains(body, "Queue: messages") {
		t.Errorf("the stream's dashboard shows a queue's widgets")
	}
	if got := len(a.Alarms.All()); got != 6 || a.Alarms.IteratorAgeAlarm == nil || a.Alarms.OnFailureAlarm == nil || a.Alarms.AgeAlarm != nil {
		t.Errorf("%d alarms (iterator age %v, on-failure %v, queue age %v), want the stream's 6", got, a.Alarms.IteratorAgeAlarm, a.Alarms.OnFailureAlarm, a.Alarms.AgeAlarm)
	}
	got := strings.Join(grantPairs(roleStatements(tpl)), "\n")
	for _, want := range []string{
		`Allow dynamodb:PutItem on {"Fn::GetAtt":["` + table + `","Arn"]}`,
		`Allow dynamodb:DeleteItem on {"Fn::GetAtt":["` + table + `","Arn"]}`,
		`Allow kinesis:GetRecords on {"Fn::GetAtt":["` + stream + `","Arn"]}`,
		`Allow sqs:SendMessage on {"Fn::GetAtt":["` + failures + `","Arn"]}`,
		`Allow lambda:ListEventSourceMappings on "*"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the function's role lacks %s; it is allowed\n%s", want, got)
		}
	}
	if strings.Contains(got, "sqs:ChangeMessageVisibility") || strings.Contains(got, "sqs:ReceiveMessage") {
		t.Errorf("the function's role polls a queue, which a stream needs not:\n%s", got)
	}
	noNotes(t, app.stack)
}

// TestStreamAttachmentTakesOverTableMapping attaches idemq to a table's
// stream the team's function already reads with CDK's DynamoEventSource:
// the Attachment takes that mapping over (one mapping, its logical id),
// keeping its starting position, batch size and retries (which size the
// expiry), adding ReportBatchItemFailures, the bisection and the topic;
// the iterator age alarm is the function's IteratorAge.
func TestStreamAttachmentTakesOverTableMapping(t *testing.T) {
	teams := func() streamApp {
		app := newStreamApp(t)
		app.function.AddEventSource(awslambdaeventsources.NewDynamoEventSource(app.table, &awslambdaeventsources.DynamoEventSourceProps{
			StartingPosition: awslambda.StartingPosition_LATEST, BatchSize: jsii.Number(50), RetryAttempts: jsii.Number(3),
		}))
		return app
	}
	before := *assertions.Template_FromStack(teams().stack, nil).ToJSON() // the app as it was, synthesized alone
	app := teams()
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Request: &request.Identity{Namespace: "accounts"},
		Stream: &idemqcdk.StreamSource{Table: app.table, OnFailureTopic: app.topic},
	})
	if want := (queue.Stream{DynamoDB: true, MaxRetryAttempts: 3}); a.Stream != want {
		t.Errorf("Stream %+v, want %+v", a.Stream, want)
	}
	if a.RecordExpiry != 30*time.Hour+2*time.Minute { // 24h + 1m, + 6h0m15s, rounded up
		t.Errorf("RecordExpiry %s, want 30h2m0s", a.RecordExpiry)
	}
	tpl := assertions.Template_FromStack(app.stack, nil)
	beforeID := ""
	for k, r := range before["Resources"].(obj) {
		if r.(obj)["Type"] == "AWS::Lambda::EventSourceMapping" {
			beforeID = k
		}
	}
	check(t, "the team's mapping, taken over", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"EventSourceArn":             getAtt(*tpl.GetResourceId(jsii.String("AWS::DynamoDB::Table"), obj{"Properties": obj{"StreamSpecification": assertions.Match_AnyValue()}}), "StreamArn"),
			"StartingPosition":           "LATEST",
			"BatchSize":                  50,
			"MaximumRetryAttempts":       3,
			"MaximumRecordAgeInSeconds":  -1,
			"FunctionResponseTypes":      arr{"ReportBatchItemFailures"},
			"BisectBatchOnFunctionError": true,
			"DestinationConfig":          obj{"OnFailure": obj{"Destination": ref(*tpl.GetResourceId(jsii.String("AWS::SNS::Topic"), nil))}},
		})
	})
	if id := *tpl.GetResourceId(jsii.String("AWS::Lambda::EventSourceMapping"), nil); id != beforeID {
		t.Errorf("the mapping is %s after idemq, %s before: CloudFormation would replace it", id, beforeID)
	}
	check(t, "iterator age from the function; notices published to the topic", func() {
		tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{"MetricName": "IteratorAge", "Namespace": "AWS/Lambda", "Threshold": 3600000})
		tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{"MetricName": "NumberOfMessagesPublished", "Namespace": "AWS/SNS"})
	})
	if got := strings.Join(grantPairs(roleStatements(tpl)), "\n"); !strings.Contains(got, "sns:Publish") || !strings.Contains(got, "dynamodb:GetRecords") {
		t.Errorf("the function's role cannot read the stream or publish to the topic:\n%s", got)
	}
	noNotes(t, app.stack)
}

// TestStreamAttachmentRefuses checks that settings no record lifetime can
// make safe, or that cannot be read, fail the synth with an error on the
// Attachment naming the field (and no panic), and a queue's props given
// with a stream too.
func TestStreamAttachmentRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(app streamApp, p *idemqcdk.AttachmentProps)
		says   string
	}{
		{"no retry", func(_ streamApp, p *idemqcdk.AttachmentProps) { p.Stream.MaxRetryAttempts = jsii.Number(0) },
			"AttachmentProps.Stream.MaxRetryAttempts"},
		{"a record age leaving no retry", func(_ streamApp, p *idemqcdk.AttachmentProps) {
			p.Stream.MaxRecordAge = awscdk.Duration_Seconds(jsii.Number(90))
		},
			"max record age 1m30s is shorter than the batching window 0s + 2 × the function's timeout 1m0s"},
		{"retries a crashed worker's lease outlasts", func(_ streamApp, p *idemqcdk.AttachmentProps) { p.Stream.MaxRetryAttempts = jsii.Number(2) },
			"max retry attempts 2 can run out while a crashed invocation's claim holds its key"},
		{"a record age a crashed worker's lease outlasts", func(_ streamApp, p *idemqcdk.AttachmentProps) {
			p.Stream.MaxRecordAge = awscdk.Duration_Seconds(jsii.Number(130))
		},
			"max record age 2m10s is shorter than the batching window 0s + a crashed invocation's lease 1m11s + a run's timeout 1m0s"},
		{"no on-failure destination", func(_ streamApp, p *idemqcdk.AttachmentProps) { p.Stream.OnFailureQueue = nil },
			"give exactly one, where Lambda sends the notice of a batch it drops"},
		{"a queue and a stream", func(app streamApp, p *idemqcdk.AttachmentProps) { p.Queue = app.failures },
			"AttachmentProps.Queue is set with AttachmentProps.Stream"},
		{"a retention that is not the stream's", func(_ streamApp, p *idemqcdk.AttachmentProps) {
			p.Stream.Retention = awscdk.Duration_Hours(jsii.Number(24))
		},
			"keeps records 48h0m0s: leave it unset"},
		{"an imported stream without its retention", func(app streamApp, p *idemqcdk.AttachmentProps) {
			p.Stream.Kinesis = awskinesis.Stream_FromStreamArn(app.stack, jsii.String("Imported"), jsii.String("arn:aws:kinesis:us-east-1:123456789012:stream/other"))
		}, "set AttachmentProps.Stream.Retention"},
		{"a table without a stream", func(app streamApp, p *idemqcdk.AttachmentProps) {
			p.Stream.Kinesis = nil
			p.Stream.Table = awsdynamodb.NewTable(app.stack, jsii.String("Plain"), &awsdynamodb.TableProps{
				PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("pk"), Type: awsdynamodb.AttributeType_STRING}})
		}, "has no stream"},
		{"a starting position that is not the app's mapping's", func(app streamApp, p *idemqcdk.AttachmentProps) {
			app.function.AddEventSource(awslambdaeventsources.NewKinesisEventSource(app.kinesis, &awslambdaeventsources.KinesisEventSourceProps{
				StartingPosition: awslambda.StartingPosition_LATEST}))
			p.Stream.StartingPosition = awslambda.StartingPosition_TRIM_HORIZON
		}, "AttachmentProps.Stream.StartingPosition is TRIM_HORIZON, but the app's event source mapping"},
		{"the app's mapping failing to another queue", func(app streamApp, p *idemqcdk.AttachmentProps) {
			other := awssqs.NewQueue(app.stack, jsii.String("Other"), nil)
			app.function.AddEventSource(awslambdaeventsources.NewKinesisEventSource(app.kinesis, &awslambdaeventsources.KinesisEventSourceProps{
				StartingPosition: awslambda.StartingPosition_LATEST, OnFailure: awslambdaeventsources.NewSqsDlq(other)}))
		}, "has an on-failure destination other than AttachmentProps.Stream.OnFailureQueue"},
		{"the app's mapping without retries", func(app streamApp, _ *idemqcdk.AttachmentProps) {
			app.function.AddEventSource(awslambdaeventsources.NewKinesisEventSource(app.kinesis, &awslambdaeventsources.KinesisEventSourceProps{
				StartingPosition: awslambda.StartingPosition_LATEST, RetryAttempts: jsii.Number(0)}))
		}, "(the app's event source mapping's MaximumRetryAttempts (or AttachmentProps.Stream.MaxRetryAttempts))"},
		{"an empty result prefix", func(_ streamApp, p *idemqcdk.AttachmentProps) {
			p.ResultBucket, p.ResultPrefix = jsii.Bool(true), jsii.String("")
		},
			"AttachmentProps.ResultPrefix"},
		{"a record expiry under a record's delivery lifetime", func(_ streamApp, p *idemqcdk.AttachmentProps) {
			p.RecordExpiry = awscdk.Duration_Hours(jsii.Number(40))
		},
			"AttachmentProps.RecordExpiry 40h0m0s is too short"},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newStreamApp(t)
			p := &idemqcdk.AttachmentProps{Function: app.function, Request: &request.Identity{Namespace: "orders"},
				Stream: &idemqcdk.StreamSource{Kinesis: app.kinesis, OnFailureQueue: app.failures}}
			c.change(app, p)
			a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), p)
			msg := refusal(t, a.Construct)
			if c.name != "a table without a stream" && (a.Table == nil || a.EventSource == nil || a.Alarms == nil) {
				t.Errorf("a refused Attachment lacks parts: %+v", a)
			}
			if !strings.Contains(msg, c.says) {
				t.Errorf("synth error %q does not say %q", msg, c.says)
			}
			t.Log(msg)
		})
	}
}

// TestStreamAttachmentWarnsOfShortRedrive checks that a record expiry
// covering a record's deliveries but not a redrive from the on-failure
// queue deploys with WarningRecordExpiry.
func TestStreamAttachmentWarnsOfShortRedrive(t *testing.T) {
	app := newStreamApp(t)
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Request: &request.Identity{Namespace: "orders"}, RecordExpiry: awscdk.Duration_Hours(jsii.Number(50)),
		Stream: &idemqcdk.StreamSource{Kinesis: app.kinesis, OnFailureQueue: app.failures},
	})
	if a.RecordExpiry != 50*time.Hour {
		t.Errorf("RecordExpiry %s, want the 50h given", a.RecordExpiry)
	}
	_, warns := allNotes(t, app.stack)
	if len(warns) != 1 || !strings.Contains(warns[0].msg, "does not cover a redrive from the on-failure destination") || warns[0].id != idemqcdk.WarningRecordExpiry {
		t.Errorf("warnings %v, want one %s about the redrive", warns, idemqcdk.WarningRecordExpiry)
	}
	if err := a.Stream.CheckExpiry(a.RecordExpiry, time.Minute); !errors.Is(err, queue.ErrInvalidSettings) {
		t.Errorf("the stream's CheckExpiry(50h) = %v, want the redrive not covered", err)
	}
}

// TestStreamAttachmentKeepsTheAppsDestination checks that the app's own
// mapping failing to the on-failure queue given is taken over without a
// refusal, the destination unchanged.
func TestStreamAttachmentKeepsTheAppsDestination(t *testing.T) {
	app := newStreamApp(t)
	app.function.AddEventSource(awslambdaeventsources.NewKinesisEventSource(app.kinesis, &awslambdaeventsources.KinesisEventSourceProps{
		StartingPosition: awslambda.StartingPosition_LATEST, OnFailure: awslambdaeventsources.NewSqsDlq(app.failures)}))
	idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Request: &request.Identity{Namespace: "orders"},
		Stream: &idemqcdk.StreamSource{Kinesis: app.kinesis, OnFailureQueue: app.failures, StartingPosition: awslambda.StartingPosition_LATEST},
	})
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "one mapping, failing to the team's queue", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"StartingPosition":  "LATEST",
			"DestinationConfig": obj{"OnFailure": obj{"Destination": getAtt(*tpl.GetResourceId(jsii.String("AWS::SQS::Queue"), nil), "Arn")}},
		})
	})
	noNotes(t, app.stack)
}

// TestStreamAttachmentGrantRedrivePanics checks that GrantRedrive, which
// moves a dead-letter queue's messages back to the queue, refuses a
// stream's Attachment at wiring time: its notices name records to read
// back from the stream.
func TestStreamAttachmentGrantRedrivePanics(t *testing.T) {
	app := newStreamApp(t)
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Request: &request.Identity{Namespace: "orders"},
		Stream: &idemqcdk.StreamSource{Kinesis: app.kinesis, OnFailureQueue: app.failures},
	})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "GrantRedrive on a stream's Attachment") {
			t.Errorf("GrantRedrive on a stream's Attachment: recovered %v, want its panic", r)
		}
	}()
	a.GrantRedrive(app.function)
}
