package idemqcdk_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// templateCheck asserts one property of the stack cdk.json deploys.
type templateCheck struct {
	name   string
	assert func(tb testing.TB, tpl assertions.Template, id ids)
}

// templateChecks cover what the issue asks of the default stack.
var templateChecks = []templateCheck{
	{"table: key id, on-demand, TTL on expiration, point-in-time recovery, deletion protection", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "table", func() {
			tpl.ResourceCountIs(jsii.String("AWS::DynamoDB::GlobalTable"), jsii.Number(1))
			tpl.HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), obj{
				"KeySchema":               arr{obj{"AttributeName": "id", "KeyType": "HASH"}},
				"AttributeDefinitions":    arr{obj{"AttributeName": "id", "AttributeType": "S"}},
				"BillingMode":             "PAY_PER_REQUEST",
				"TimeToLiveSpecification": obj{"AttributeName": "expiration", "Enabled": true},
				"Replicas": arr{obj{
					"PointInTimeRecoverySpecification": obj{"PointInTimeRecoveryEnabled": true},
					"DeletionProtectionEnabled":        true,
				}},
			})
		})
	}},
	{"table: retained when the stack is deleted or the table replaced", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "table retention", func() {
			tpl.HasResource(jsii.String("AWS::DynamoDB::GlobalTable"), obj{
				"DeletionPolicy":      "Retain",
				"UpdateReplacePolicy": "Retain",
			})
		})
	}},
	{"bucket: S3-managed encryption, public access blocked, results under idemq/ expire a day after the 541h15m0s records, rounded up to 24 days", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "bucket", func() {
			tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(1))
			tpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
				"BucketEncryption": obj{"ServerSideEncryptionConfiguration": arr{obj{"ServerSideEncryptionByDefault": obj{"SSEAlgorithm": "AES256"}}}},
				"PublicAccessBlockConfiguration": obj{
					"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
				},
				"LifecycleConfiguration": obj{"Rules": assertions.Match_ArrayEquals(&arr{obj{
					"Id": "ExpireResults", "Status": "Enabled", "Prefix": "idemq/", "ExpirationInDays": 24,
				}})},
				"VersioningConfiguration": assertions.Match_Absent(),
			})
		})
	}},
	{"bucket: retained, with its TLS policy, when the stack is deleted or the bucket replaced", func(tb testing.TB, tpl assertions.Template, id ids) {
		retained := obj{"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
		check(tb, "bucket retention", func() { tpl.HasResource(jsii.String("AWS::S3::Bucket"), retained) })
		check(tb, "bucket TLS policy, retained", func() {
			tpl.ResourceCountIs(jsii.String("AWS::S3::BucketPolicy"), jsii.Number(1))
			tpl.HasResource(jsii.String("AWS::S3::BucketPolicy"), merge(retained, obj{"Properties": obj{
				"Bucket": ref(id.bucket),
				"PolicyDocument": obj{"Statement": arr{obj{
					"Effect":    "Deny",
					"Action":    "s3:*",
					"Principal": obj{"AWS": "*"},
					"Resource":  arr{getAtt(id.bucket, "Arn"), obj{"Fn::Join": arr{"", arr{getAtt(id.bucket, "Arn"), "/*"}}}},
					"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
				}}},
			}}))
		})
	}},
	{"queue: retention, visibility 6 × timeout, DLQ after 5 receives, SSE", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "queue", func() {
			tpl.ResourceCountIs(jsii.String("AWS::SQS::Queue"), jsii.Number(2))
			tpl.HasResourceProperties(jsii.String("AWS::SQS::Queue"), obj{
				"MessageRetentionPeriod": 345600,
				"VisibilityTimeout":      720,
				"RedrivePolicy":          obj{"deadLetterTargetArn": getAtt(id.dlq, "Arn"), "maxReceiveCount": 5},
				"SqsManagedSseEnabled":   true,
			})
		})
		check(tb, "dead-letter queue", func() {
			tpl.HasResource(jsii.String("AWS::SQS::Queue"), obj{
				"Properties": obj{"MessageRetentionPeriod": 1209600, "SqsManagedSseEnabled": true, "RedrivePolicy": assertions.Match_Absent()},
			})
		})
	}},
	{"dead-letter queue: retained, with its TLS policy, when the stack is deleted or the queue replaced; the queue is not", func(tb testing.TB, tpl assertions.Template, id ids) {
		retained := obj{"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
		check(tb, "dead-letter queue retention", func() {
			tpl.HasResource(jsii.String("AWS::SQS::Queue"), merge(retained, obj{"Properties": obj{"RedrivePolicy": assertions.Match_Absent()}}))
		})
		check(tb, "the dead-letter queue's policy retained", func() {
			tpl.HasResource(jsii.String("AWS::SQS::QueuePolicy"), merge(retained, obj{"Properties": obj{"Queues": arr{ref(id.dlq)}}}))
		})
		check(tb, "the queue deleted", func() {
			tpl.HasResource(jsii.String("AWS::SQS::Queue"), obj{
				"DeletionPolicy": "Delete", "Properties": obj{"RedrivePolicy": assertions.Match_AnyValue()},
			})
		})
	}},
	{"redrive: a managed policy on nothing allowing exactly the redrive of the dead-letter queue into the queue", func(tb testing.TB, tpl assertions.Template, id ids) {
		wantRedrive(tb, tpl, id)
	}},
	{"queues: deny requests not made over TLS", func(tb testing.TB, tpl assertions.Template, id ids) {
		for _, q := range []string{id.queue, id.dlq} {
			check(tb, "TLS policy of "+q, func() {
				tpl.HasResourceProperties(jsii.String("AWS::SQS::QueuePolicy"), obj{
					"Queues": arr{ref(q)},
					"PolicyDocument": obj{"Statement": arr{obj{
						"Effect":    "Deny",
						"Action":    "sqs:*",
						"Principal": obj{"AWS": "*"},
						"Resource":  getAtt(q, "Arn"),
						"Condition": obj{"Bool": obj{"aws:SecureTransport": "false"}},
					}}},
				})
			})
		}
	}},
	{"function: provided.al2023, arm64, handler bootstrap, 2 min, its own log group, no tracing", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "function", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Runtime":       "provided.al2023",
				"Architectures": arr{"arm64"},
				"Handler":       "bootstrap",
				"Timeout":       120,
				"MemorySize":    256,
				"Role":          getAtt(id.role, "Arn"),
				"LoggingConfig": obj{"LogGroup": ref(id.logs)},
				"TracingConfig": assertions.Match_Absent(),
			})
		})
	}},
	{"function: environment with the computed record expiry and back-off on", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": assertions.Match_ObjectEquals(&obj{
					"IDEMQ_TABLE":         ref(id.table),
					"IDEMQ_RECORD_EXPIRY": "541h15m0s",
					"IDEMQ_CLOCK_SKEW":    "500ms",
					"IDEMQ_BACKOFF":       "true",
					"IDEMQ_KEY_FIELD":     "idempotency_key",
					"IDEMQ_NAMESPACE":     "idemq",
					"IDEMQ_PROVIDER_URL":  "https://api.openai.com/v1",
					"IDEMQ_QUEUE":         defaultQueueEnv,
					"IDEMQ_EMF_NAMESPACE": "idemq",
					"IDEMQ_BLOB_BUCKET":   ref(id.bucket),
					"IDEMQ_BLOB_PREFIX":   "idemq/",
				})},
			})
		})
	}},
	{"event source: the queue, batch item failures reported, batch size 10, at most 10 at once", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "event source", func() {
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
			tpl.HasResource(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
				"Properties": obj{
					"EventSourceArn":                 getAtt(id.queue, "Arn"),
					"FunctionName":                   ref(id.function),
					"FunctionResponseTypes":          assertions.Match_ArrayEquals(&arr{"ReportBatchItemFailures"}),
					"BatchSize":                      10,
					"MaximumBatchingWindowInSeconds": assertions.Match_Absent(),
					"ScalingConfig":                  obj{"MaximumConcurrency": 10},
				},
				// Polling needs the role's policy: it must exist first.
				"DependsOn": assertions.Match_ArrayWith(&arr{assertions.Match_StringLikeRegexp(jsii.String("^WorkerRoleDefaultPolicy"))}),
			})
		})
	}},
	{"iam: exactly the three item actions on the table, polling and back-off on the queue, logs on the log group, put and get under the bucket's prefix", func(tb testing.TB, tpl assertions.Template, id ids) {
		wantGrants(tb, tpl, id, true)
	}},
	{"iam: no wildcard, one role holding no managed policy, the redrive policy on nothing", func(tb testing.TB, tpl assertions.Template, id ids) {
		noWildcards(tb, tpl)
	}},
	{"alarms: dead letters, a dead letter's time left, the oldest message's age, failed records, duration, function errors, throttles", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "the alarms", func() { tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(alarmCount)) })
		for _, a := range []obj{
			{"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum", "Threshold": 1, "Period": 60,
				"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(id.dlq, "QueueName")}}},
			// Half of the 10 days a dead letter is sure to be kept: 14 days
			// from when it was sent, which was up to 96 h before it moved.
			{"Namespace": "AWS/SQS", "MetricName": "ApproximateAgeOfOldestMessage", "Statistic": "Maximum", "Threshold": 432000, "Period": 300,
				"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(id.dlq, "QueueName")}}},
			// 2 × (720 s visibility + no window).
			{"Namespace": "AWS/SQS", "MetricName": "ApproximateAgeOfOldestMessage", "Statistic": "Maximum", "Threshold": 1440, "Period": 300,
				"Dimensions": arr{obj{"Name": "QueueName", "Value": getAtt(id.queue, "QueueName")}}},
			// The handler's count, under the key namespace.
			{"Namespace": "idemq", "MetricName": "Failed", "Statistic": "Sum", "Threshold": 1, "Period": 300,
				"Dimensions": arr{obj{"Name": "Service", "Value": "idemq"}}},
			// 80 % of the 120 s timeout, in milliseconds.
			{"Namespace": "AWS/Lambda", "MetricName": "Duration", "Statistic": "Maximum", "Threshold": 96000, "Period": 300,
				"Dimensions": arr{obj{"Name": "FunctionName", "Value": ref(id.function)}}},
			{"Namespace": "AWS/Lambda", "MetricName": "Errors", "Statistic": "Sum", "Threshold": 1, "Period": 300,
				"Dimensions": arr{obj{"Name": "FunctionName", "Value": ref(id.function)}}},
			{"Namespace": "AWS/Lambda", "MetricName": "Throttles", "Statistic": "Sum", "Threshold": 1, "Period": 300,
				"Dimensions": arr{obj{"Name": "FunctionName", "Value": ref(id.function)}}},
		} {
			a["ComparisonOperator"] = "GreaterThanOrEqualToThreshold"
			a["EvaluationPeriods"] = 1
			a["TreatMissingData"] = "notBreaching"
			check(tb, "alarm on "+jsonString(a["Dimensions"])+" "+a["MetricName"].(string), func() {
				tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), a)
			})
		}
	}},
	{"alarm actions: none unless idemq:alarmTopicArn is set", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "alarm actions", func() {
			tpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"AlarmActions":            assertions.Match_Absent(),
				"OKActions":               assertions.Match_Absent(),
				"InsufficientDataActions": assertions.Match_Absent(),
			}, jsii.Number(alarmCount))
		})
	}},
	{"dashboard: the alarms, the records by outcome, the queues, the function, its duration against the timeout", func(tb testing.TB, tpl assertions.Template, id ids) {
		wantDashboard(tb, tpl, id)
	}},
	{"dashboard: records per day stacked by class, provider calls avoided per day", wantDailyWidgets},
	{"secret: none unless idemq:providerApiKeySecret is set, no KMS grant, and no API key in plain text", func(tb testing.TB, tpl assertions.Template, id ids) {
		if grants := secretsManagerGrants(tpl); len(grants) != 0 {
			tb.Errorf("identity policies allow, with no secret set:\n\t%s", strings.Join(grants, "\n\t"))
		}
		wantKMS(tb, tpl)
		check(tb, "environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{
					"IDEMQ_PROVIDER_API_KEY_SECRET": assertions.Match_Absent(),
					"IDEMQ_PROVIDER_API_KEY":        assertions.Match_Absent(),
				}},
			})
		})
	}},
	{"outputs: queue and dead-letter queue URLs and ARNs, table name, function name and ARN, the redrive policy's ARN", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "outputs", func() {
			tpl.HasOutput(jsii.String("QueueUrl"), obj{"Value": ref(id.queue)})
			tpl.HasOutput(jsii.String("QueueArn"), obj{"Value": getAtt(id.queue, "Arn")})
			tpl.HasOutput(jsii.String("DeadLetterQueueUrl"), obj{"Value": ref(id.dlq)})
			tpl.HasOutput(jsii.String("DeadLetterQueueArn"), obj{"Value": getAtt(id.dlq, "Arn")})
			tpl.HasOutput(jsii.String("RedrivePolicyArn"), obj{"Value": ref(*tpl.GetResourceId(jsii.String("AWS::IAM::ManagedPolicy"), nil))})
			tpl.HasOutput(jsii.String("TableName"), obj{"Value": ref(id.table)})
			tpl.HasOutput(jsii.String("FunctionName"), obj{"Value": ref(id.function)})
			tpl.HasOutput(jsii.String("FunctionArn"), obj{"Value": getAtt(id.function, "Arn")})
			tpl.HasOutput(jsii.String("BlobBucketName"), obj{"Value": ref(id.bucket)})
		})
	}},
}

// defaultQueueEnv is IDEMQ_QUEUE with cdk.json's settings: the queue's,
// and the dead-letter queue's retention.
const defaultQueueEnv = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`

// alarmCount is how many alarms the stack has (Worker.Alarms).
const alarmCount = 7

// merge is a copy of a with b's entries added.
func merge(a, b obj) obj {
	out := obj{}
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// wantRedrive checks that the one managed policy allows exactly the
// redrive of the dead-letter queue into the queue, and is attached to
// nothing.
func wantRedrive(tb testing.TB, tpl assertions.Template, id ids) {
	tb.Helper()
	var statements []obj
	for _, r := range *tpl.FindResources(jsii.String("AWS::IAM::ManagedPolicy"), nil) {
		props, _ := (*r)["Properties"].(obj)
		for _, k := range []string{"Roles", "Users", "Groups"} {
			if props[k] != nil {
				tb.Errorf("the redrive policy is attached to %s %s", k, jsonString(props[k]))
			}
		}
		doc, _ := props["PolicyDocument"].(obj)
		for _, st := range list(doc["Statement"]) {
			st, _ := st.(obj)
			statements = append(statements, st)
		}
	}
	var want []obj
	for _, a := range []string{"sqs:StartMessageMoveTask", "sqs:ListMessageMoveTasks", "sqs:CancelMessageMoveTask",
		"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"} {
		want = append(want, obj{"Effect": "Allow", "Action": a, "Resource": getAtt(id.dlq, "Arn")})
	}
	want = append(want, obj{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": getAtt(id.queue, "Arn")})
	if got, expected := grantPairs(statements), grantPairs(want); !slices.Equal(got, expected) {
		tb.Errorf("the managed policies allow\n\t%s\nwant exactly\n\t%s", strings.Join(got, "\n\t"), strings.Join(expected, "\n\t"))
	}
}

// dashboardBody is the dashboard's body with each reference in it written
// as a string: {"Ref": X} as "Ref:X", {"Fn::GetAtt": [X, A]} as
// "GetAtt:X.A".
func dashboardBody(tb testing.TB, tpl assertions.Template) obj {
	tb.Helper()
	dashboards := *tpl.FindResources(jsii.String("AWS::CloudWatch::Dashboard"), nil)
	if len(dashboards) != 1 {
		tb.Errorf("%d dashboards, want 1", len(dashboards))
		return nil
	}
	var text strings.Builder
	for _, d := range dashboards {
		body := (*d)["Properties"].(obj)["DashboardBody"]
		parts := arr{body}
		if b, ok := body.(obj); ok {
			if join, ok := b["Fn::Join"].(arr); ok && len(join) == 2 {
				parts, _ = join[1].(arr)
			}
		}
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				text.WriteString(p)
			case obj:
				if r, ok := p["Ref"]; ok {
					fmt.Fprintf(&text, "Ref:%v", r)
				} else if a, ok := p["Fn::GetAtt"].(arr); ok {
					fmt.Fprintf(&text, "GetAtt:%v.%v", a[0], a[1])
				} else {
					tb.Errorf("dashboard body part %s", jsonString(p))
				}
			}
		}
	}
	var out obj
	if err := json.Unmarshal([]byte(text.String()), &out); err != nil {
		tb.Errorf("dashboard body: %v\n%s", err, text.String())
	}
	return out
}

// wantDashboard checks the dashboard's widgets: every alarm's state; the
// handler's counts under the key namespace; the queue's and the dead-letter
// queue's messages and oldest message's age, the latter against the expiry
// alarm's threshold; the function's duration against the duration alarm's
// threshold and its timeout.
func wantDashboard(tb testing.TB, tpl assertions.Template, id ids) {
	tb.Helper()
	var alarms, metrics, annotations []string
	for _, w := range list(dashboardBody(tb, tpl)["widgets"]) {
		props, _ := w.(obj)["properties"].(obj)
		for _, a := range list(props["alarms"]) {
			alarms = append(alarms, fmt.Sprint(a))
		}
		for _, m := range list(props["metrics"]) {
			m, _ := m.(arr)
			var parts []string
			for _, p := range m {
				if _, ok := p.(string); ok {
					parts = append(parts, p.(string))
				}
			}
			metrics = append(metrics, strings.Join(parts, " "))
		}
		axes, _ := props["annotations"].(obj)
		for _, a := range list(axes["horizontal"]) {
			a, _ := a.(obj)
			annotations = append(annotations, fmt.Sprintf("%v %v", a["yAxis"], a["value"]))
		}
	}
	if len(alarms) != alarmCount {
		tb.Errorf("the dashboard shows %d alarms, want %d: %v", len(alarms), alarmCount, alarms)
	}
	for alarm := range *tpl.FindResources(jsii.String("AWS::CloudWatch::Alarm"), nil) {
		if !slices.Contains(alarms, "GetAtt:"+alarm+".Arn") {
			tb.Errorf("the dashboard does not show alarm %s", alarm)
		}
	}
	want := []string{
		"AWS/SQS ApproximateNumberOfMessagesVisible QueueName GetAtt:" + id.queue + ".QueueName",
		"AWS/SQS ApproximateAgeOfOldestMessage QueueName GetAtt:" + id.queue + ".QueueName",
		"AWS/SQS ApproximateNumberOfMessagesVisible QueueName GetAtt:" + id.dlq + ".QueueName",
		"AWS/SQS ApproximateAgeOfOldestMessage QueueName GetAtt:" + id.dlq + ".QueueName",
		"AWS/Lambda Invocations FunctionName Ref:" + id.function,
		"AWS/Lambda Errors FunctionName Ref:" + id.function,
		"AWS/Lambda Throttles FunctionName Ref:" + id.function,
		"AWS/Lambda Duration FunctionName Ref:" + id.function,
	}
	for _, name := range []string{"Records", "Executed", "Replayed", "InProgress", "Failed", "Skipped", "BatchItemFailures"} {
		want = append(want, "idemq "+name+" Service idemq")
	}
	for _, m := range want {
		if !slices.Contains(metrics, m) {
			tb.Errorf("the dashboard has no metric %s; it has\n\t%s", m, strings.Join(metrics, "\n\t"))
		}
	}
	// The expiry alarm's 5 days on the dead letters' age (right axis); the
	// duration alarm's 96 s and the 120 s timeout on the duration (left).
	for _, a := range []string{"right 432000", "left 96000", "left 120000"} {
		if !slices.Contains(annotations, a) {
			tb.Errorf("the dashboard has no line at %s; it has %v", a, annotations)
		}
	}
}

// TestTemplate checks the stack `cdk synth` writes with cdk.json as it is.
func TestTemplate(t *testing.T) {
	runChecks(t, nil, templateChecks)
}

// runChecks synthesizes the stack with overrides on top of cdk.json's
// context and runs each check on its template as a subtest.
func runChecks(t *testing.T, overrides map[string]any, checks []templateCheck) {
	tpl := synth(t, overrides)
	id := resourceIDs(t, tpl)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.assert(t, tpl, id) })
	}
}

// Values for the context keys cdk.json leaves empty.
const (
	testSecretName = "idemq/provider-key"
	testTopicArn   = "arn:aws:sns:eu-west-1:123456789012:idemq-alerts"
)

// configuredContext sets the context keys cdk.json leaves empty.
var configuredContext = map[string]any{
	"idemq:providerApiKeySecret": testSecretName,
	"idemq:alarmTopicArn":        testTopicArn,
}

// secretByName is the ARN a policy names for a secret imported by name: any
// suffix Secrets Manager added to the name, in the stack's account and
// region.
func secretByName(name string) obj {
	return obj{"Fn::Join": arr{"", arr{
		"arn:", ref("AWS::Partition"), ":secretsmanager:", ref("AWS::Region"), ":", ref("AWS::AccountId"), ":secret:" + name + "-??????",
	}}}
}

// configuredChecks cover what the keys of configuredContext add.
var configuredChecks = []templateCheck{
	{"secret: the function gets the secret's name and may read it", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{
					"IDEMQ_PROVIDER_API_KEY_SECRET": testSecretName,
					"IDEMQ_PROVIDER_API_KEY":        assertions.Match_Absent(),
				}},
			})
		})
		wantGrants(tb, tpl, id, true, readSecret(secretByName(testSecretName)))
		wantKMS(tb, tpl) // no idemq:providerApiKeySecretKmsKey: no KMS grant
		noWildcards(tb, tpl)
	}},
	{"alarm actions: the topic of idemq:alarmTopicArn, when each alarm goes off", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "alarm actions", func() {
			tpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"AlarmActions": assertions.Match_ArrayEquals(&arr{testTopicArn}),
				"OKActions":    assertions.Match_Absent(),
			}, jsii.Number(alarmCount))
		})
		check(tb, "the topic is imported, not created", func() {
			tpl.ResourceCountIs(jsii.String("AWS::SNS::Topic"), jsii.Number(0))
		})
	}},
}

// TestConfiguredTemplate checks the stack with the context keys cdk.json
// leaves empty set.
func TestConfiguredTemplate(t *testing.T) {
	runChecks(t, configuredContext, configuredChecks)
}

// Values for a secret encrypted with a customer-managed KMS key.
const (
	// testKeyedSecretName ends in a hyphen and six characters, as if
	// Secrets Manager had added them; the function must still get it whole.
	testKeyedSecretName = "idemq/openai-apikey"
	testKeyArn          = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
)

// keyedContext sets a secret, by name, and the KMS key encrypting it.
var keyedContext = map[string]any{
	"idemq:providerApiKeySecret":       testKeyedSecretName,
	"idemq:providerApiKeySecretKmsKey": testKeyArn,
}

// keyedChecks cover what the keys of keyedContext add.
var keyedChecks = []templateCheck{
	{"secret key: the function gets the secret's whole name, may read it, and may decrypt with the key through Secrets Manager only", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": testKeyedSecretName}},
			})
		})
		decrypt := decryptSecret(testKeyArn, ref("AWS::Region"))
		wantGrants(tb, tpl, id, true, readSecret(secretByName(testKeyedSecretName)), decrypt)
		wantKMS(tb, tpl, decrypt)
		noWildcards(tb, tpl)
	}},
}

// TestKeyedTemplate checks the stack with a secret encrypted with a
// customer-managed KMS key.
func TestKeyedTemplate(t *testing.T) {
	runChecks(t, keyedContext, keyedChecks)
}
