package idemqcdk_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/request"
)

// TestRecordExpiryFollowsQueueSettings checks the expiry the function gets,
// with the queue and event source settings it comes from, for a few
// settings. The expected values are worked out by hand from the formula
// (message lifetime = retention + max receives × (visibility + batching
// window); a redrive from the 14-day dead-letter queue: standard,
// max(14 days, lifetime) + lifetime; FIFO, lifetime + 14 days + lifetime;
// record lifetime = that + a quarter of it (at least 1h), rounded up to a
// minute).
func TestRecordExpiryFollowsQueueSettings(t *testing.T) {
	cases := []struct {
		name      string
		context   map[string]any
		expiry    string
		queueEnv  string // IDEMQ_QUEUE
		queue     obj
		mapping   obj
		functionS int
	}{{
		// 96h + 5 × 720s = 97h; 336h + 97h = 433h; + 108h15m = 541h15m.
		name:      "cdk.json as it is",
		expiry:    "541h15m0s",
		queueEnv:  defaultQueueEnv,
		queue:     obj{"MessageRetentionPeriod": 345600, "VisibilityTimeout": 720, "RedrivePolicy": obj{"maxReceiveCount": 5}},
		mapping:   obj{"BatchSize": 10, "MaximumBatchingWindowInSeconds": assertions.Match_Absent()},
		functionS: 120,
	}, {
		// visibility 6 × 60s + 20s = 380s; 336h + 10 × 400s = 337h6m40s;
		// the dead-letter queue's 14 days have passed when the message can
		// reach it: 2 × 337h6m40s = 674h13m20s; + 168h33m20s = 842h46m40s.
		name: "14 days, 60 s timeout, 10 receives, 20 s window, batches of 100, 50 at once",
		context: map[string]any{
			"idemq:retention": "336h", "idemq:functionTimeout": "1m", "idemq:maxReceives": 10,
			"idemq:batchingWindow": "20s", "idemq:batchSize": 100, "idemq:maxConcurrency": 50,
		},
		expiry:    "842h47m0s",
		queueEnv:  `{"retention":"336h0m0s","visibilityTimeout":"6m20s","maxReceives":10,"batchingWindow":"20s","deadLetterRetention":"336h0m0s","fifo":false}`,
		queue:     obj{"MessageRetentionPeriod": 1209600, "VisibilityTimeout": 380, "RedrivePolicy": obj{"maxReceiveCount": 10}},
		mapping:   obj{"BatchSize": 100, "MaximumBatchingWindowInSeconds": 20, "ScalingConfig": obj{"MaximumConcurrency": 50}},
		functionS: 60,
	}, {
		// 1h + 3 × 300s = 1h15m; 336h + 1h15m = 337h15m; + 84h18m45s.
		name:      "1 h retention, visibility 300 s, 3 receives",
		context:   map[string]any{"idemq:retention": "1h", "idemq:visibilityTimeout": "300s", "idemq:maxReceives": 3},
		expiry:    "421h34m0s",
		queueEnv:  `{"retention":"1h0m0s","visibilityTimeout":"5m0s","maxReceives":3,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`,
		queue:     obj{"MessageRetentionPeriod": 3600, "VisibilityTimeout": 300, "RedrivePolicy": obj{"maxReceiveCount": 3}},
		mapping:   obj{"BatchSize": 10},
		functionS: 120,
	}, {
		name:      "an expiry set longer than needed",
		context:   map[string]any{"idemq:recordExpiry": "600h"},
		expiry:    "600h0m0s",
		queueEnv:  defaultQueueEnv,
		queue:     obj{"VisibilityTimeout": 720},
		mapping:   obj{"BatchSize": 10},
		functionS: 120,
	}, {
		// As -c key=value gives them: strings.
		name:      "values given as strings on the command line",
		context:   map[string]any{"idemq:maxReceives": "7", "idemq:batchSize": "20", "idemq:batchingWindow": "1s", "idemq:fifo": "false"},
		expiry:    "541h46m0s", // 96h + 7 × (721s + 1s) = 97h24m14s; + 336h = 433h24m14s; + 108h21m3.5s, rounded up
		queueEnv:  `{"retention":"96h0m0s","visibilityTimeout":"12m1s","maxReceives":7,"batchingWindow":"1s","deadLetterRetention":"336h0m0s","fifo":false}`,
		queue:     obj{"VisibilityTimeout": 721, "RedrivePolicy": obj{"maxReceiveCount": 7}},
		mapping:   obj{"BatchSize": 20, "MaximumBatchingWindowInSeconds": 1},
		functionS: 120,
	}, {
		// FIFO: the dead-letter queue's 14 days count from the move, up to
		// 97h after the send: 97h + 336h + 97h = 530h; + 132h30m.
		name:      "FIFO",
		context:   map[string]any{"idemq:fifo": true},
		expiry:    "662h30m0s",
		queueEnv:  `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":true}`,
		queue:     obj{"FifoQueue": true, "MessageRetentionPeriod": 345600, "VisibilityTimeout": 720, "RedrivePolicy": obj{"maxReceiveCount": 5}},
		mapping:   obj{"BatchSize": 10},
		functionS: 120,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tpl := synth(t, c.context)
			check(t, "expiry", func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
					"Timeout":     c.functionS,
					"Environment": obj{"Variables": obj{"IDEMQ_RECORD_EXPIRY": c.expiry, "IDEMQ_QUEUE": c.queueEnv}},
				})
			})
			check(t, "queue", func() { tpl.HasResourceProperties(jsii.String("AWS::SQS::Queue"), c.queue) })
			check(t, "event source", func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), c.mapping)
			})
		})
	}
}

// TestBackoff checks that in-progress back-off is on by default (cdk.json
// sets idemq:backoff true, and so does leaving it out): exactly
// sqs:ChangeMessageVisibility on the queue added, and the function told.
func TestBackoff(t *testing.T) {
	for name, overrides := range map[string]map[string]any{
		"cdk.json":             nil,
		"idemq:backoff absent": {"idemq:backoff": nil},
	} {
		t.Run(name, func(t *testing.T) {
			tpl := synth(t, overrides)
			wantGrants(t, tpl, resourceIDs(t, tpl), true)
			check(t, "environment", func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
					"Environment": obj{"Variables": obj{"IDEMQ_BACKOFF": "true"}},
				})
			})
		})
	}
}

// TestNoBackoff checks that with back-off off the function is told so, not
// left to its own default, and may not change a message's visibility.
func TestNoBackoff(t *testing.T) {
	tpl := synth(t, map[string]any{"idemq:backoff": false})
	wantGrants(t, tpl, resourceIDs(t, tpl), false)
	noWildcards(t, tpl)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_BACKOFF": "false"}},
		})
	})
}

// TestFIFO checks that both queues are FIFO queues.
func TestFIFO(t *testing.T) {
	tpl := synth(t, map[string]any{"idemq:fifo": true})
	check(t, "queues", func() {
		tpl.ResourcePropertiesCountIs(jsii.String("AWS::SQS::Queue"), obj{"FifoQueue": true}, jsii.Number(2))
	})
}

// TestRecordExpiryShortOfARedriveWarns checks that an expiry that covers
// the queue but not a redrive from the dead-letter queue deploys, with a
// warning saying after how long a redriven message runs its work again.
func TestRecordExpiryShortOfARedriveWarns(t *testing.T) {
	stack := newStack(t, map[string]any{"idemq:recordExpiry": "200h"}) // message lifetime 97h; a redrive needs 433h
	check(t, "expiry", func() {
		assertions.Template_FromStack(stack, nil).HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_RECORD_EXPIRY": "200h0m0s"}},
		})
	})
	check(t, "warning", func() {
		assertions.Annotations_FromStack(stack).HasWarning(jsii.String("/Idemq/Worker"),
			assertions.Match_StringLikeRegexp(jsii.String(`idemq:recordExpiry 200h0m0s does not cover a redrive from the dead-letter queue, which keeps messages 336h0m0s: a message redriven more than 103h0m0s after it was sent .* run its work again; leave idemq:recordExpiry unset for the computed 541h15m0s`)))
	})
}

// TestProviderURL checks the provider URLs synth takes, each given to the
// function as it is, and the warning for plain http beyond this machine.
func TestProviderURL(t *testing.T) {
	cases := []struct {
		url  string
		warn bool
	}{
		{"https://api.openai.com/v1", false},
		{"https://openrouter.ai/api/v1/", false},
		{"https://llm.internal.example:8443", false},
		{"http://127.0.0.1:8080/v1", false},
		{"http://localhost:11434", false},
		{"http://[::1]:11434/v1", false},
		{"http://llm.internal.example/v1", true},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			stack := newStack(t, map[string]any{"idemq:providerUrl": c.url})
			check(t, "environment", func() {
				assertions.Template_FromStack(stack, nil).HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
					"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_URL": c.url}},
				})
			})
			a := assertions.Annotations_FromStack(stack)
			if c.warn {
				check(t, "warning", func() {
					a.HasWarning(jsii.String("/Idemq/Worker"), assertions.Match_StringLikeRegexp(jsii.String(`idemq:providerUrl ".*" is plain http`)))
				})
			} else {
				check(t, "no warning", func() { a.HasNoWarning(jsii.String("*"), assertions.Match_AnyValue()) })
			}
		})
	}
}

// TestKeyFieldDefault checks that without idemq:keyField the function is
// still told its key field: request.DefaultKeyField, stated by the code,
// not left to the worker's own default.
func TestKeyFieldDefault(t *testing.T) {
	for name, v := range map[string]any{"absent": nil, "empty": ""} {
		t.Run(name, func(t *testing.T) {
			tpl := synth(t, map[string]any{"idemq:keyField": v})
			check(t, "environment", func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
					"Environment": obj{"Variables": obj{"IDEMQ_KEY_FIELD": request.DefaultKeyField}},
				})
			})
		})
	}
}

// TestDeadLetterExpiryAlarm checks the age at which the dead-letter expiry
// alarm goes off: half the time a dead letter is sure to stay in the
// 14-day dead-letter queue (a standard queue's message keeps its first
// enqueue time, so it may have spent the queue's retention already; a FIFO
// queue's does not), and the warning when that time is under 3 days.
func TestDeadLetterExpiryAlarm(t *testing.T) {
	cases := []struct {
		name      string
		context   map[string]any
		threshold int // seconds
		warn      string
	}{
		{"96 h", nil, 5 * 86400, ""},
		{"10 days", map[string]any{"idemq:retention": "240h"}, 2 * 86400, ""},
		{"12 days: 2 days sure", map[string]any{"idemq:retention": "288h"}, 86400, `idemq:retention 288h0m0s leaves a dead letter as little as 48h0m0s in the dead-letter queue`},
		{"14 days: none sure", map[string]any{"idemq:retention": "336h"}, 60, `idemq:retention 336h0m0s leaves a dead letter as little as 0s in the dead-letter queue`},
		{"FIFO, 14 days", map[string]any{"idemq:retention": "336h", "idemq:fifo": true}, 7 * 86400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stack := newStack(t, c.context)
			tpl := assertions.Template_FromStack(stack, nil)
			id := resourceIDs(t, tpl)
			check(t, "alarm", func() {
				tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
					"Namespace": "AWS/SQS", "MetricName": "ApproximateAgeOfOldestMessage", "Threshold": c.threshold,
					"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(id.dlq, "QueueName")}},
				})
			})
			a := assertions.Annotations_FromStack(stack)
			if c.warn == "" {
				check(t, "no warning", func() { a.HasNoWarning(jsii.String("*"), assertions.Match_AnyValue()) })
			} else {
				check(t, "warning", func() {
					a.HasWarning(jsii.String("/Idemq/Worker"), assertions.Match_StringLikeRegexp(jsii.String(c.warn)))
				})
			}
		})
	}
}

// TestMaxConcurrency checks the event source's cap: none when
// idemq:maxConcurrency is absent or 0 (cdk.json sets 10), and what it is
// set to otherwise.
func TestMaxConcurrency(t *testing.T) {
	for _, c := range []struct {
		name    string
		context map[string]any
		scaling any
	}{
		{"absent", map[string]any{"idemq:maxConcurrency": nil}, assertions.Match_Absent()},
		{"cdk.json's", nil, obj{"MaximumConcurrency": 10}},
		{"0: no cap", map[string]any{"idemq:maxConcurrency": 0}, assertions.Match_Absent()},
		{"0 from the command line", map[string]any{"idemq:maxConcurrency": "0"}, assertions.Match_Absent()},
		{"50", map[string]any{"idemq:maxConcurrency": 50}, obj{"MaximumConcurrency": 50}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tpl := synth(t, c.context)
			check(t, "event source", func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{"ScalingConfig": c.scaling})
			})
		})
	}
}
