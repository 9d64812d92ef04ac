package idemqcdk_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
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
	wantGrants(t, tpl, resourceIDs(t, tpl), true, readSecret(arn))
	noWildcards(t, tpl)
}

// TestProviderAPIKeySecretKMSKeyByARN checks a secret given by its complete
// ARN with the KMS key encrypting it: the function may decrypt with that key
// only, through Secrets Manager in the secret's region only. (By name:
// keyedChecks.)
func TestProviderAPIKeySecretKMSKeyByARN(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:idemq/provider-key-AbCdEf"
	tpl := synth(t, map[string]any{"idemq:providerApiKeySecret": arn, "idemq:providerApiKeySecretKmsKey": testKeyArn})
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": arn}},
		})
	})
	decrypt := decryptSecret(testKeyArn, "eu-west-1")
	wantGrants(t, tpl, resourceIDs(t, tpl), true, readSecret(arn), decrypt)
	wantKMS(t, tpl, decrypt)
	noWildcards(t, tpl)
}

// TestAcceptedARNs checks ARN forms NewStack takes: other partitions, a FIFO
// topic, a multi-Region key.
func TestAcceptedARNs(t *testing.T) {
	for _, ctx := range []map[string]any{
		{"idemq:providerApiKeySecret": "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:prod/openai_key-a1B2c3"},
		{"idemq:providerApiKeySecret": "prod/openai+key=v2@team.x"},
		{"idemq:providerApiKeySecret": "arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:prod/openai_key-a1B2c3",
			"idemq:providerApiKeySecretKmsKey": "arn:aws-cn:kms:cn-north-1:210987654321:key/mrk-1234abcd12ab34cd56ef1234567890ab"},
		{"idemq:providerApiKeySecret": "prod/openai-apikey",
			"idemq:providerApiKeySecretKmsKey": "arn:aws:kms:ap-southeast-5:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		{"idemq:alarmTopicArn": "arn:aws-cn:sns:cn-north-1:123456789012:idemq_alerts"},
		{"idemq:alarmTopicArn": "arn:aws:sns:ap-southeast-5:123456789012:idemq-alerts.fifo"},
	} {
		if _, err := idemqcdk.NewStack(newApp(t, ctx), jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."}); err != nil {
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
	idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
		Code:                 awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		Request:              request.Identity{Namespace: "jobs"},
		ProviderAPIKeySecret: secret,
	})
	tpl := assertions.Template_FromStack(stack, nil)
	secretID := *tpl.GetResourceId(jsii.String("AWS::SecretsManager::Secret"), nil)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": ref(secretID)}},
		})
	})
	wantGrants(t, tpl, resourceIDs(t, tpl), true, readSecret(ref(secretID)))
}

// TestWorkerProviderAPIKeySecretWithKey checks WorkerProps.ProviderAPIKeySecret
// with a secret the user imported by partial ARN, carrying its KMS key: the
// function gets the secret's whole name (CDK's SecretName would drop
// "-apikey") and may decrypt with the key, which CDK's GrantRead does not
// grant for an imported key.
func TestWorkerProviderAPIKeySecretWithKey(t *testing.T) {
	const partialArn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/openai-apikey"
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	secret := awssecretsmanager.Secret_FromSecretAttributes(stack, jsii.String("Key"), &awssecretsmanager.SecretAttributes{
		SecretPartialArn: jsii.String(partialArn),
		EncryptionKey:    awskms.Key_FromKeyArn(stack, jsii.String("KeyKey"), jsii.String(testKeyArn)),
	})
	idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
		Code:                 awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		Request:              request.Identity{Namespace: "jobs"},
		ProviderAPIKeySecret: secret,
	})
	tpl := assertions.Template_FromStack(stack, nil)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_PROVIDER_API_KEY_SECRET": "team/openai-apikey"}},
		})
	})
	decrypt := decryptSecret(testKeyArn, "eu-west-1")
	wantGrants(t, tpl, resourceIDs(t, tpl), true, readSecret(partialArn+"-??????"), decrypt)
	wantKMS(t, tpl, decrypt)
}
