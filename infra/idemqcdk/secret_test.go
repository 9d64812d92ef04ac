package idemqcdk_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// TestProviderAPIKeySecretByARN checks a secret given by its complete ARN:
// the function gets the ARN and may read that secret only. (By name:
// configuredChecks.)
func TestProviderAPIKeySecretByARN(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:idemq/provider-key-AbCdEf"
	tpl := synth(t, map[string]any{"idemq:providerApiKeySecret": arn})
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": arn}},
		})
	})
	wantGrants(t, tpl, resourceIDs(t, tpl), false, readSecret(arn))
	noWildcards(t, tpl)
}

// TestAcceptedARNs checks ARN forms NewStack takes: other partitions, a FIFO
// topic.
func TestAcceptedARNs(t *testing.T) {
	for _, ctx := range []map[string]any{
		{"idemq:providerApiKeySecret": "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:prod/openai_key-a1B2c3"},
		{"idemq:providerApiKeySecret": "prod/openai+key=v2@team.x"},
		{"idemq:alarmTopicArn": "arn:aws-cn:sns:cn-north-1:123456789012:idemq_alerts"},
		{"idemq:alarmTopicArn": "arn:aws:sns:ap-southeast-5:123456789012:idemq-alerts.fifo"},
	} {
		if _, err := idemqcdk.NewStack(newApp(t, ctx), "Idemq", &idemqcdk.StackProps{ModuleDir: "../.."}); err != nil {
			t.Errorf("%v: %v", ctx, err)
		}
	}
}

// TestWorkerProviderAPIKeySecret checks WorkerProps.ProviderAPIKeySecret
// with a secret of the user's own stack: the function gets its complete ARN
// and may read it.
func TestWorkerProviderAPIKeySecret(t *testing.T) {
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	secret := awssecretsmanager.NewSecret(stack, jsii.String("Key"), nil)
	idemqcdk.NewWorker(stack, "Jobs", &idemqcdk.WorkerProps{
		Code:                 awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		ProviderAPIKeySecret: secret,
	})
	tpl := assertions.Template_FromStack(stack, nil)
	secretID := *tpl.GetResourceId(jsii.String("AWS::SecretsManager::Secret"), nil)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": ref(secretID)}},
		})
	})
	wantGrants(t, tpl, resourceIDs(t, tpl), false, readSecret(ref(secretID)))
}
