package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
)

// shipmentsStack is the team's shipments stack with props (Code set), in
// an app of its own.
func shipmentsStack(t *testing.T, props ShipmentsStackProps) awscdk.Stack {
	t.Helper()
	props.Code = idemqcdk.GoCode(".", "./function")
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	return NewShipmentsStack(app, jsii.String("Shipments"), &props)
}

// TestShipmentsTemplate checks, in the app as main makes it, what idemq
// adds to the team's Kinesis stream and function: the record expiry the function is given is
// queue.Stream's RecordLifetime of the settings the template deploys (the
// stream's 7 days, the mapping's one-day record age and unlimited
// retries, the on-failure queue's 14 days); the team's mapping, with the
// same logical id as before idemq, gains ReportBatchItemFailures, the
// bisection, the record age and the on-failure queue; no queue settings
// for the function to check; six alarms paging the team's topic; no
// synth note.
func TestShipmentsTemplate(t *testing.T) {
	beforeDoc := *assertions.Template_FromStack(shipmentsStack(t, ShipmentsStackProps{WithoutIdemq: true}), nil).ToJSON()
	beforeID, _ := only(t, beforeDoc, "AWS::Lambda::EventSourceMapping", nil)
	// The app as main makes it, both stacks: each needs code of its own
	// (CDK refuses an asset shared by two stacks, which one stack alone
	// cannot show).
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("the app does not synthesize: %v", r)
			}
		}()
		addStacks(app, false)
	}()
	stack := app.Node().FindChild(jsii.String("Shipments")).(awscdk.Stack)
	doc := *assertions.Template_FromStack(stack, nil).ToJSON()
	streamID, stream := only(t, doc, "AWS::Kinesis::Stream", nil)
	failuresID, failures := only(t, doc, "AWS::SQS::Queue", nil)
	_, fn := only(t, doc, "AWS::Lambda::Function", nil)
	mappingID, mapping := only(t, doc, "AWS::Lambda::EventSourceMapping", nil)
	topicID, _ := only(t, doc, "AWS::SNS::Topic", nil)
	if mappingID != beforeID {
		t.Errorf("the mapping is %s before idemq and %s with it: CloudFormation would replace it", beforeID, mappingID)
	}

	// The settings as the template deploys them.
	num := func(v any, def float64) float64 {
		if f, ok := v.(float64); ok {
			return f
		}
		return def
	}
	m := props(mapping)
	s := queue.Stream{
		Retention:          time.Duration(num(props(stream)["RetentionPeriodHours"], 24)) * time.Hour,
		MaxRetryAttempts:   int(num(m["MaximumRetryAttempts"], -1)),
		MaxRecordAge:       time.Duration(num(m["MaximumRecordAgeInSeconds"], -1)) * time.Second,
		OnFailureRetention: time.Duration(num(props(failures)["MessageRetentionPeriod"], 4*24*3600)) * time.Second,
	}
	life, err := s.RecordLifetime(time.Duration(num(props(fn)["Timeout"], 3)) * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// A record is read until a day old, run by 24h1m; a redrive from its
	// notice reads it back within the stream's 7 days, and the copy lives
	// 24h1m: 192h1m; + 48h0m15s, rounded up.
	if life != 240*time.Hour+2*time.Minute {
		t.Errorf("the stream's record lifetime is %s, want 240h2m0s", life)
	}
	env, _ := props(fn)["Environment"].(obj)["Variables"].(obj)
	if got := env["IDEMQ_RECORD_EXPIRY"]; got != life.String() {
		t.Errorf("the function's IDEMQ_RECORD_EXPIRY is %v, want %s", got, life)
	}
	if _, ok := env["IDEMQ_QUEUE"]; ok || env["IDEMQ_BACKOFF"] != "false" || env["ORDERS_FROM"] != "kinesis" {
		t.Errorf("the function's environment %s: want no IDEMQ_QUEUE, IDEMQ_BACKOFF false, the team's ORDERS_FROM kept", jsonText(env))
	}
	for k, want := range map[string]any{
		"EventSourceArn":             obj{"Fn::GetAtt": arr{streamID, "Arn"}},
		"StartingPosition":           "TRIM_HORIZON",
		"BatchSize":                  100,
		"FunctionResponseTypes":      arr{"ReportBatchItemFailures"},
		"BisectBatchOnFunctionError": true,
		"MaximumRetryAttempts":       -1,
		"MaximumRecordAgeInSeconds":  86400,
		"DestinationConfig":          obj{"OnFailure": obj{"Destination": obj{"Fn::GetAtt": arr{failuresID, "Arn"}}}},
	} {
		if jsonText(m[k]) != jsonText(want) {
			t.Errorf("the mapping's %s is %s, want %s", k, jsonText(m[k]), jsonText(want))
		}
	}
	alarms := map[string]int{}
	for _, r := range doc["Resources"].(obj) {
		if r := r.(obj); r["Type"] == "AWS::CloudWatch::Alarm" {
			alarms[fmt.Sprint(props(r)["MetricName"])]++
			if got := jsonText(props(r)["AlarmActions"]); got != jsonText(arr{obj{"Ref": topicID}}) {
				t.Errorf("alarm %v's actions %s, want the team's pager topic", props(r)["MetricName"], got)
			}
			if props(r)["MetricName"] == "GetRecords.IteratorAgeMilliseconds" && props(r)["Threshold"] != 3600000.0 {
				t.Errorf("the iterator age alarm's threshold is %v ms, want an hour (a quarter of the one-day record age, at most an hour)", props(r)["Threshold"])
			}
		}
	}
	if got := jsonText(alarms); got != `{"ApproximateNumberOfMessagesVisible":1,"Duration":1,"Errors":1,"Failed":1,"GetRecords.IteratorAgeMilliseconds":1,"Throttles":1}` {
		t.Errorf("alarms by metric: %s, want the stream's six", got)
	}
	for _, errs := range []bool{true, false} {
		for _, n := range notes(stack, errs) {
			t.Errorf("synth note (cdk synth --strict fails on it): %s", n)
		}
	}
}
