package idemqcdk_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// recorder is a testing.TB that keeps the errors reported to it instead of
// failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.errs = append(r.errs, fmt.Sprint(args...)) }

// find is the construct at path (e.g. "Worker/Table") under scope.
func find(tb testing.TB, scope constructs.IConstruct, path string) constructs.IConstruct {
	tb.Helper()
	c := scope
	for _, id := range strings.Split(path, "/") {
		if c = c.Node().TryFindChild(jsii.String(id)); c == nil {
			tb.Fatalf("no construct at %s", path)
		}
	}
	return c
}

// override sets a property of the CloudFormation resource of the construct
// at path, as a bug in the construct would.
func override(path, property string, value any) func(testing.TB, awscdk.Stack) {
	return func(tb testing.TB, stack awscdk.Stack) {
		cfn := find(tb, stack, path).Node().DefaultChild().(awscdk.CfnResource)
		cfn.AddPropertyOverride(jsii.String(property), value)
	}
}

// editPolicy replaces the statements of the role's policy with what edit
// makes of them, as a bug in the grants would.
func editPolicy(edit func(statements []obj) []obj) func(testing.TB, awscdk.Stack) {
	return func(tb testing.TB, stack awscdk.Stack) {
		policy := find(tb, stack, "Worker/Role/DefaultPolicy").(awsiam.Policy)
		doc, _ := stack.Resolve(policy.Document()).(obj)
		var statements []obj
		for _, st := range list(doc["Statement"]) {
			st, _ := st.(obj)
			statements = append(statements, st)
		}
		edited := arr{}
		for _, st := range edit(statements) {
			edited = append(edited, st)
		}
		doc["Statement"] = edited
		policy.Node().DefaultChild().(awsiam.CfnPolicy).SetPolicyDocument(doc)
	}
}

// editKMSStatements is editPolicy applying edit to each statement naming a
// KMS action; edit returns nil to drop it.
func editKMSStatements(edit func(obj) obj) func(testing.TB, awscdk.Stack) {
	return editPolicy(func(statements []obj) []obj {
		var out []obj
		for _, st := range statements {
			if strings.Contains(jsonString(st["Action"]), `"kms:`) {
				if st = edit(st); st == nil {
					continue
				}
			}
			out = append(out, st)
		}
		return out
	})
}

// decryptWithTestKey allows the role kms:Decrypt on testKeyArn, through
// Secrets Manager only, as a grant made whatever the settings would.
func decryptWithTestKey(tb testing.TB, s awscdk.Stack) {
	find(tb, s, "Worker/Role").(awsiam.Role).AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("kms:Decrypt"),
		Resources:  jsii.Strings(testKeyArn),
		Conditions: &map[string]any{"StringEquals": map[string]any{"kms:ViaService": "secretsmanager.eu-west-1.amazonaws.com"}},
	}))
}

// templateCheckNamed is the check of templateChecks, configuredChecks or
// keyedChecks whose name starts with prefix.
func templateCheckNamed(tb testing.TB, prefix string) templateCheck {
	tb.Helper()
	for _, c := range slices.Concat(templateChecks, configuredChecks, keyedChecks) {
		if strings.HasPrefix(c.name, prefix) {
			return c
		}
	}
	tb.Fatalf("no template check named %q…", prefix)
	return templateCheck{}
}

// TestBrokenPropertyFailsItsCheck breaks one property of the stack at a time
// and runs the check TestTemplate (or TestConfiguredTemplate) runs for it:
// each must fail, or it would pass whatever the template holds.
func TestBrokenPropertyFailsItsCheck(t *testing.T) {
	breakages := []breakage{
		{"TTL on another attribute", []string{"table: key id"},
			override("Worker/Table", "TimeToLiveSpecification.AttributeName", "ttl")},
		{"point-in-time recovery off", []string{"table: key id"},
			override("Worker/Table", "Replicas.0.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled", false)},
		{"provisioned billing", []string{"table: key id"},
			override("Worker/Table", "BillingMode", "PROVISIONED")},
		{"table deleted with the stack", []string{"table: retained"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Table").Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_DESTROY, nil)
		}},
		{"dead-letter queue deleted with the stack", []string{"dead-letter queue: retained"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/DeadLetterQueue").Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_DESTROY, nil)
		}},
		{"dead-letter queue replaced without a trace", []string{"dead-letter queue: retained"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/DeadLetterQueue").Node().DefaultChild().(awscdk.CfnResource).AddOverride(jsii.String("UpdateReplacePolicy"), "Delete")
		}},
		{"the dead-letter queue's TLS policy deleted with the stack", []string{"dead-letter queue: retained"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/DeadLetterQueue/Policy").Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_DESTROY, nil)
		}},
		{"the queue retained too", []string{"dead-letter queue: retained"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Queue").Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_RETAIN, nil)
		}},
		{"redrive from the queue instead", []string{"redrive:"}, func(tb testing.TB, s awscdk.Stack) {
			queue := find(tb, s, "Worker/Queue").(awssqs.Queue)
			override("Worker/RedrivePolicy", "PolicyDocument.Statement.0.Resource", queue.QueueArn())(tb, s)
		}},
		{"the redrive policy on the function's role", []string{"redrive:", "iam: no wildcard"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/RedrivePolicy").(awsiam.ManagedPolicy).AttachToRole(find(tb, s, "Worker/Role").(awsiam.Role))
		}},
		{"a redrive to any queue", []string{"redrive:", "iam: no wildcard"},
			override("Worker/RedrivePolicy", "PolicyDocument.Statement.1.Resource", "*")},
		{"the dead-letter expiry alarm at 14 days", []string{"alarms:"},
			override("Worker/DeadLetterExpiryAlarm", "Threshold", 1209600)},
		{"the dead-letter expiry alarm on the queue", []string{"alarms:"}, func(tb testing.TB, s awscdk.Stack) {
			queue := find(tb, s, "Worker/Queue").(awssqs.Queue)
			override("Worker/DeadLetterExpiryAlarm", "Dimensions.0.Value", queue.QueueName())(tb, s)
		}},
		{"the failed alarm on another service's records", []string{"alarms:"},
			override("Worker/FailedAlarm", "Dimensions.0.Value", "Idemq/Worker")},
		{"the failed alarm on batch item failures", []string{"alarms:"},
			override("Worker/FailedAlarm", "MetricName", "BatchItemFailures")},
		{"the duration alarm at the timeout", []string{"alarms:"},
			override("Worker/DurationAlarm", "Threshold", 120000)},
		{"the duration alarm on the average", []string{"alarms:"},
			override("Worker/DurationAlarm", "Statistic", "Average")},
		{"EMF off", []string{"function: environment"}, func(tb testing.TB, s awscdk.Stack) {
			override("Worker/Function", "Environment.Variables.IDEMQ_EMF_NAMESPACE", "")(tb, s)
		}},
		{"no event source cap", []string{"event source:"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Function/QueueSource").Node().DefaultChild().(awscdk.CfnResource).AddPropertyDeletionOverride(jsii.String("ScalingConfig"))
		}},
		{"a dashboard without the records", []string{"dashboard:"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Dashboard").(awscloudwatch.Dashboard).Node().DefaultChild().(awscloudwatch.CfnDashboard).SetDashboardBody(jsii.String(`{"widgets":[]}`))
		}},
		{"visibility timeout of 300 s", []string{"queue:"},
			override("Worker/Queue", "VisibilityTimeout", 300)},
		{"dead-letter queue after 1 receive", []string{"queue:"},
			override("Worker/Queue", "RedrivePolicy.maxReceiveCount", 1)},
		{"queue without SSE", []string{"queue:"},
			override("Worker/Queue", "SqsManagedSseEnabled", false)},
		{"x86_64 function", []string{"function: provided"},
			override("Worker/Function", "Architectures", []string{"x86_64"})},
		{"record expiry of 1h", []string{"function: environment"},
			override("Worker/Function", "Environment.Variables.IDEMQ_RECORD_EXPIRY", "1h0m0s")},
		{"batch item failures not reported", []string{"event source:"},
			override("Worker/Function/QueueSource", "FunctionResponseTypes", []string{})},
		{"a wildcard grant", []string{"iam: exactly", "iam: no wildcard"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Role").(awsiam.Role).AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("dynamodb:*"), Resources: jsii.Strings("*"),
			}))
		}},
		{"grantReadWriteData instead of the three actions", []string{"iam: exactly"}, func(tb testing.TB, s awscdk.Stack) {
			table := find(tb, s, "Worker/Table").(awsdynamodb.TableV2)
			table.GrantReadWriteData(find(tb, s, "Worker/Role").(awsiam.Role))
		}},
		{"a managed policy on the role", []string{"iam: no wildcard"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Role").(awsiam.Role).AddManagedPolicy(
				awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String("service-role/AWSLambdaBasicExecutionRole")))
		}},
		{"dead-letter alarm on the work queue", []string{"alarms:"}, func(tb testing.TB, s awscdk.Stack) {
			queue := find(tb, s, "Worker/Queue").(awssqs.Queue)
			override("Worker/DeadLetterAlarm", "Dimensions.0.Value", queue.QueueName())(tb, s)
		}},
		{"an alarm action with no topic set", []string{"alarm actions: none"},
			override("Worker/ThrottlesAlarm", "AlarmActions", []string{testTopicArn})},
		{"the errors alarm on invocations", []string{"alarms:"},
			override("Worker/ErrorsAlarm", "MetricName", "Invocations")},
		{"the age alarm at the visibility timeout", []string{"alarms:"},
			override("Worker/AgeAlarm", "Threshold", 720)},
		{"back-off off in the function", []string{"function: environment"},
			override("Worker/Function", "Environment.Variables.IDEMQ_BACKOFF", "false")},
		{"no back-off grant", []string{"iam: exactly"}, editPolicy(func(statements []obj) []obj {
			return slices.DeleteFunc(statements, func(st obj) bool { return st["Sid"] == "InProgressBackoff" })
		})},
		{"table without deletion protection", []string{"table: key id"},
			override("Worker/Table", "Replicas.0.DeletionProtectionEnabled", false)},
		{"tracing on", []string{"function: provided"},
			override("Worker/Function", "TracingConfig", obj{"Mode": "Active"})},
		{"no dead-letter queue output", []string{"outputs:"}, func(tb testing.TB, s awscdk.Stack) {
			s.Node().TryRemoveChild(jsii.String("DeadLetterQueueUrl"))
		}},
		{"no redrive policy output", []string{"outputs:"}, func(tb testing.TB, s awscdk.Stack) {
			s.Node().TryRemoveChild(jsii.String("RedrivePolicyArn"))
		}},
		{"a secret grant with no secret set", []string{"secret: none", "iam: exactly"}, func(tb testing.TB, s awscdk.Stack) {
			awssecretsmanager.Secret_FromSecretNameV2(s, jsii.String("Other"), jsii.String("other")).GrantRead(find(tb, s, "Worker/Role").(awsiam.Role), nil)
		}},
		{"kms:Decrypt with no secret set", []string{"secret: none", "iam: exactly"}, decryptWithTestKey},
		{"the API key in plain text", []string{"secret: none"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Function").(awslambda.Function).AddEnvironment(jsii.String("IDEMQ_PROVIDER_API_KEY"), jsii.String("sk-plain"), nil)
		}},
	}
	// With the context keys cdk.json leaves empty set.
	configured := []breakage{
		{"another secret's name given to the function", []string{"secret: the function"},
			override("Worker/Function", "Environment.Variables.IDEMQ_PROVIDER_API_KEY_SECRET", "idemq/other-key")},
		{"every secret readable", []string{"secret: the function"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Role").(awsiam.Role).AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("secretsmanager:GetSecretValue"), Resources: jsii.Strings("*"),
			}))
		}},
		{"kms:Decrypt with no key set", []string{"secret: the function"}, decryptWithTestKey},
		{"the age alarm notifying nobody", []string{"alarm actions: the topic"},
			override("Worker/AgeAlarm", "AlarmActions", []string{})},
		{"the dead-letter alarm notifying on recovery too", []string{"alarm actions: the topic"},
			override("Worker/DeadLetterAlarm", "OKActions", []string{testTopicArn})},
	}
	// With a secret encrypted with a customer-managed KMS key.
	keyed := []breakage{
		{"no kms:Decrypt on the key", []string{"secret key:"},
			editKMSStatements(func(obj) obj { return nil })},
		{"kms:Decrypt on the key outside Secrets Manager", []string{"secret key:"},
			editKMSStatements(func(st obj) obj { delete(st, "Condition"); return st })},
		{"kms:Decrypt through Secrets Manager in another region", []string{"secret key:"},
			editKMSStatements(func(st obj) obj {
				st["Condition"] = obj{"StringEquals": obj{"kms:ViaService": "secretsmanager.us-east-1.amazonaws.com"}}
				return st
			})},
		{"kms:Decrypt with every key", []string{"secret key:", "iam: no wildcard"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Role").(awsiam.Role).AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("kms:Decrypt"), Resources: jsii.Strings("*"),
			}))
		}},
		{"a second, unconditioned kms:Decrypt on the key", []string{"secret key:"}, func(tb testing.TB, s awscdk.Stack) {
			find(tb, s, "Worker/Role").(awsiam.Role).AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("kms:Decrypt"), Resources: jsii.Strings(testKeyArn),
			}))
		}},
		{"the name cut as CDK's SecretName cuts it", []string{"secret key:"},
			override("Worker/Function", "Environment.Variables.IDEMQ_PROVIDER_API_KEY_SECRET", "idemq/openai")},
	}
	for _, b := range breakages {
		t.Run(b.name, func(t *testing.T) { b.check(t, nil) })
	}
	for _, b := range configured {
		t.Run(b.name, func(t *testing.T) { b.check(t, configuredContext) })
	}
	for _, b := range keyed {
		t.Run(b.name, func(t *testing.T) { b.check(t, keyedContext) })
	}
}

// breakage is a bug in the stack, and the checks it must fail.
type breakage struct {
	name   string
	checks []string // prefixes of the checks that must fail
	break_ func(testing.TB, awscdk.Stack)
}

// check breaks the stack made with cdk.json's context plus overrides, and
// runs the checks.
func (b breakage) check(t *testing.T, overrides map[string]any) {
	stack := newStack(t, overrides)
	b.break_(t, stack)
	tpl := assertions.Template_FromStack(stack, nil)
	id := resourceIDs(t, tpl)
	for _, prefix := range b.checks {
		c := templateCheckNamed(t, prefix)
		r := &recorder{TB: t}
		c.assert(r, tpl, id)
		if len(r.errs) == 0 {
			t.Errorf("check %q passed on a template with %s", c.name, b.name)
			continue
		}
		t.Logf("check %q failed as it should: %.200s", c.name, r.errs[0])
	}
}
