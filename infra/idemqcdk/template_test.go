package idemqcdk_test

import (
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
	{"table: key id, on-demand, TTL on expiration, point-in-time recovery", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "table", func() {
			tpl.ResourceCountIs(jsii.String("AWS::DynamoDB::GlobalTable"), jsii.Number(1))
			tpl.HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), obj{
				"KeySchema":               arr{obj{"AttributeName": "id", "KeyType": "HASH"}},
				"AttributeDefinitions":    arr{obj{"AttributeName": "id", "AttributeType": "S"}},
				"BillingMode":             "PAY_PER_REQUEST",
				"TimeToLiveSpecification": obj{"AttributeName": "expiration", "Enabled": true},
				"Replicas": arr{obj{
					"PointInTimeRecoverySpecification": obj{"PointInTimeRecoveryEnabled": true},
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
	{"queue: retention, visibility 6 × timeout, DLQ after 5 receives, SSE", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "queue", func() {
			tpl.ResourceCountIs(jsii.String("AWS::SQS::Queue"), jsii.Number(2))
			tpl.HasResourceProperties(jsii.String("AWS::SQS::Queue"), obj{
				"MessageRetentionPeriod": 345600,
				"VisibilityTimeout":      180,
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
	{"function: provided.al2023, arm64, handler bootstrap, its own log group", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "function", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Runtime":       "provided.al2023",
				"Architectures": arr{"arm64"},
				"Handler":       "bootstrap",
				"Timeout":       30,
				"MemorySize":    256,
				"Role":          getAtt(id.role, "Arn"),
				"LoggingConfig": obj{"LogGroup": ref(id.logs)},
			})
		})
	}},
	{"function: environment with the computed record expiry", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": assertions.Match_ObjectEquals(&obj{
					"IDEMQ_TABLE":         ref(id.table),
					"IDEMQ_RECORD_EXPIRY": "120h19m0s",
					"IDEMQ_KEY_FIELD":     "idempotency_key",
					"IDEMQ_NAMESPACE":     "idemq",
					"IDEMQ_PROVIDER_URL":  "https://api.openai.com/v1",
				})},
			})
		})
	}},
	{"event source: the queue, batch item failures reported, batch size 10", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "event source", func() {
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
			tpl.HasResource(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
				"Properties": obj{
					"EventSourceArn":                 getAtt(id.queue, "Arn"),
					"FunctionName":                   ref(id.function),
					"FunctionResponseTypes":          assertions.Match_ArrayEquals(&arr{"ReportBatchItemFailures"}),
					"BatchSize":                      10,
					"MaximumBatchingWindowInSeconds": assertions.Match_Absent(),
					"ScalingConfig":                  assertions.Match_Absent(),
				},
				// Polling needs the role's policy: it must exist first.
				"DependsOn": assertions.Match_ArrayWith(&arr{assertions.Match_StringLikeRegexp(jsii.String("^WorkerRoleDefaultPolicy"))}),
			})
		})
	}},
	{"iam: exactly the four item actions on the table, polling on the queue, logs on the log group", func(tb testing.TB, tpl assertions.Template, id ids) {
		wantGrants(tb, tpl, id, false)
	}},
	{"iam: no wildcard, no managed policy, one role", func(tb testing.TB, tpl assertions.Template, id ids) {
		noWildcards(tb, tpl)
	}},
	{"alarm: on messages in the dead-letter queue", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "alarm", func() {
			tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"Namespace":          "AWS/SQS",
				"MetricName":         "ApproximateNumberOfMessagesVisible",
				"Dimensions":         arr{obj{"Name": "QueueName", "Value": getAtt(id.dlq, "QueueName")}},
				"ComparisonOperator": "GreaterThanOrEqualToThreshold",
				"Threshold":          1,
				"EvaluationPeriods":  1,
			})
		})
	}},
	{"alarm actions: none unless idemq:alarmTopicArn is set", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "alarm actions", func() {
			tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"AlarmActions":            assertions.Match_Absent(),
				"OKActions":               assertions.Match_Absent(),
				"InsufficientDataActions": assertions.Match_Absent(),
			})
		})
	}},
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
	{"outputs: queue URL and table name", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "outputs", func() {
			tpl.HasOutput(jsii.String("QueueUrl"), obj{"Value": ref(id.queue)})
			tpl.HasOutput(jsii.String("TableName"), obj{"Value": ref(id.table)})
		})
	}},
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
		wantGrants(tb, tpl, id, false, readSecret(secretByName(testSecretName)))
		wantKMS(tb, tpl) // no idemq:providerApiKeySecretKmsKey: no KMS grant
		noWildcards(tb, tpl)
	}},
	{"alarm actions: the topic of idemq:alarmTopicArn, when the alarm goes off", func(tb testing.TB, tpl assertions.Template, id ids) {
		check(tb, "alarm actions", func() {
			tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"Dimensions":   arr{obj{"Name": "QueueName", "Value": getAtt(id.dlq, "QueueName")}},
				"AlarmActions": assertions.Match_ArrayEquals(&arr{testTopicArn}),
				"OKActions":    assertions.Match_Absent(),
			})
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
		wantGrants(tb, tpl, id, false, readSecret(secretByName(testKeyedSecretName)), decrypt)
		wantKMS(tb, tpl, decrypt)
		noWildcards(tb, tpl)
	}},
}

// TestKeyedTemplate checks the stack with a secret encrypted with a
// customer-managed KMS key.
func TestKeyedTemplate(t *testing.T) {
	runChecks(t, keyedContext, keyedChecks)
}
