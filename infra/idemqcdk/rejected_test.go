package idemqcdk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
)

// TestRejectedSettings checks that settings which cannot work fail the
// synth, before anything is created, with a *SettingError whose message
// names the context key to change.
func TestRejectedSettings(t *testing.T) {
	cases := []struct {
		name    string
		context map[string]any
		field   string // the WorkerProps field at fault
		names   string // the context key the message must name
		idem    bool   // the cause is idem's (errors.Is queue.ErrInvalidSettings)
	}{
		{"visibility shorter than the function timeout",
			map[string]any{"idemq:functionTimeout": "60s", "idemq:visibilityTimeout": "30s"},
			"VisibilityTimeout", "idemq:visibilityTimeout", false},
		{"without back-off, a crashed worker's lease outlasts the receives left",
			// lease 120s + 10s = 130s: one receive at 130s finds it in
			// progress, and 2 receives leave none for the retry.
			map[string]any{"idemq:backoff": false, "idemq:visibilityTimeout": "130s", "idemq:maxReceives": 2},
			"MaxReceives", "idemq:visibilityTimeout", false},
		{"without back-off, receives every visibility timeout use them all up",
			map[string]any{"idemq:backoff": false, "idemq:functionTimeout": "5m", "idemq:visibilityTimeout": "5m", "idemq:maxReceives": 2},
			"MaxReceives", "idemq:maxReceives", false},
		{"with back-off, two receives and a visibility timeout under the lease",
			map[string]any{"idemq:visibilityTimeout": "120s", "idemq:maxReceives": 2},
			"MaxReceives", "idemq:maxReceives", false},
		{"retention shorter than a crashed worker's lease and one retry",
			map[string]any{"idemq:retention": "10m"}, // 130s lease + 720s
			"Retention", "idemq:retention", false},
		{"back-off not a boolean",
			map[string]any{"idemq:backoff": "yes please"},
			"DisableBackoff", "idemq:backoff", false},
		{"a bootstrap directory holding more than bootstrap",
			map[string]any{"idemq:bootstrapDir": "../../lambda"},
			"", "idemq:bootstrapDir", false},
		{"expiry shorter than the message lifetime",
			map[string]any{"idemq:recordExpiry": "96h"}, // lifetime 97h
			"RecordExpiry", "idemq:recordExpiry", true},
		{"batch over 10 on a FIFO queue",
			map[string]any{"idemq:fifo": true, "idemq:batchSize": 11},
			"BatchSize", "idemq:batchSize", false},
		{"batching window on a FIFO queue",
			map[string]any{"idemq:fifo": true, "idemq:batchingWindow": "5s"},
			"BatchingWindow", "idemq:batchingWindow", false},
		{"batch over 10 without a batching window",
			map[string]any{"idemq:batchSize": 11},
			"BatchSize", "idemq:batchingWindow", false},
		{"batch over 10,000",
			map[string]any{"idemq:batchSize": 10001, "idemq:batchingWindow": "1s"},
			"BatchSize", "idemq:batchSize", false},
		{"retention over 14 days",
			map[string]any{"idemq:retention": "337h"},
			"Retention", "idemq:retention", false},
		{"retention under 60 s",
			map[string]any{"idemq:retention": "59s"},
			"Retention", "idemq:retention", false},
		{"visibility over 12 h",
			map[string]any{"idemq:visibilityTimeout": "12h1s"},
			"VisibilityTimeout", "idemq:visibilityTimeout", false},
		{"max receives over 1000",
			map[string]any{"idemq:maxReceives": 1001},
			"MaxReceives", "idemq:maxReceives", false},
		{"batching window over 300 s",
			map[string]any{"idemq:batchingWindow": "301s"},
			"BatchingWindow", "idemq:batchingWindow", false},
		{"max concurrency of -1 (the construct's NoMaxConcurrency)",
			map[string]any{"idemq:maxConcurrency": -1},
			"MaxConcurrency", "idemq:maxConcurrency", false},
		{"max concurrency of 1",
			map[string]any{"idemq:maxConcurrency": 1},
			"MaxConcurrency", "idemq:maxConcurrency", false},
		{"function timeout over 15 min",
			map[string]any{"idemq:functionTimeout": "16m"},
			"Timeout", "idemq:functionTimeout", false},
		{"function timeout not whole seconds",
			map[string]any{"idemq:functionTimeout": "1500ms"},
			"Timeout", "idemq:functionTimeout", false},
		{"memory under 128 MB",
			map[string]any{"idemq:memoryMB": 64},
			"MemoryMB", "idemq:memoryMB", false},
		{"a duration that does not parse",
			map[string]any{"idemq:retention": "4 days"},
			"Retention", "idemq:retention", false},
		{"a number as a duration",
			map[string]any{"idemq:retention": 345600},
			"Retention", "idemq:retention", false},
		{"a count that is not a number",
			map[string]any{"idemq:batchSize": "ten"},
			"BatchSize", "idemq:batchSize", false},
		{"a misspelt key",
			map[string]any{"idemq:retension": "96h"},
			"", "idemq:retension", false},
		{"a bootstrap directory without bootstrap",
			map[string]any{"idemq:bootstrapDir": "."},
			"", "idemq:bootstrapDir", false},
		{"a secret ARN without the suffix Secrets Manager adds",
			map[string]any{"idemq:providerApiKeySecret": "arn:aws:secretsmanager:us-east-1:123456789012:secret:idemq/key"},
			"ProviderAPIKeySecret", "idemq:providerApiKeySecret", false},
		{"a parameter ARN as the secret",
			map[string]any{"idemq:providerApiKeySecret": "arn:aws:ssm:us-east-1:123456789012:parameter/idemq/provider-key"},
			"ProviderAPIKeySecret", "idemq:providerApiKeySecret", false},
		{"a secret name with a space",
			map[string]any{"idemq:providerApiKeySecret": "provider key"},
			"ProviderAPIKeySecret", "idemq:providerApiKeySecret", false},
		{"a number as the secret",
			map[string]any{"idemq:providerApiKeySecret": 42},
			"ProviderAPIKeySecret", "idemq:providerApiKeySecret", false},
		{"a KMS alias ARN as the secret's key",
			map[string]any{"idemq:providerApiKeySecret": "idemq/provider-key", "idemq:providerApiKeySecretKmsKey": "arn:aws:kms:us-east-1:123456789012:alias/idemq"},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a key ID alone as the secret's key",
			map[string]any{"idemq:providerApiKeySecret": "idemq/provider-key", "idemq:providerApiKeySecretKmsKey": "1234abcd-12ab-34cd-56ef-1234567890ab"},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a key ARN without the account",
			map[string]any{"idemq:providerApiKeySecret": "idemq/provider-key", "idemq:providerApiKeySecretKmsKey": "arn:aws:kms:us-east-1::key/1234abcd-12ab-34cd-56ef-1234567890ab"},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a key ARN with a truncated key ID",
			map[string]any{"idemq:providerApiKeySecret": "idemq/provider-key", "idemq:providerApiKeySecretKmsKey": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef"},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a number as the secret's key",
			map[string]any{"idemq:providerApiKeySecret": "idemq/provider-key", "idemq:providerApiKeySecretKmsKey": 42},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a KMS key without a secret",
			map[string]any{"idemq:providerApiKeySecretKmsKey": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a KMS key in another region than the secret",
			map[string]any{
				"idemq:providerApiKeySecret":       "arn:aws:secretsmanager:eu-west-1:123456789012:secret:idemq/provider-key-AbCdEf",
				"idemq:providerApiKeySecretKmsKey": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
			},
			"", "idemq:providerApiKeySecretKmsKey", false},
		{"a provider URL that is not a URL",
			map[string]any{"idemq:providerUrl": "not-a-url"},
			"ProviderURL", "idemq:providerUrl", false},
		{"an empty provider URL",
			map[string]any{"idemq:providerUrl": ""},
			"ProviderURL", "idemq:providerUrl", false},
		{"no provider URL",
			map[string]any{"idemq:providerUrl": nil},
			"ProviderURL", "idemq:providerUrl", false},
		{"a provider URL without a host",
			map[string]any{"idemq:providerUrl": "https:///v1"},
			"ProviderURL", "idemq:providerUrl", false},
		{"a provider URL of another scheme",
			map[string]any{"idemq:providerUrl": "ftp://api.openai.com/v1"},
			"ProviderURL", "idemq:providerUrl", false},
		{"a provider URL with a password",
			map[string]any{"idemq:providerUrl": "https://user:sk-plain@api.openai.com/v1"},
			"ProviderURL", "idemq:providerUrl", false},
		{"a provider URL with a query",
			map[string]any{"idemq:providerUrl": "https://api.openai.com/v1?api-version=1"},
			"ProviderURL", "idemq:providerUrl", false},
		{"a provider URL with white space",
			map[string]any{"idemq:providerUrl": "https://api.openai.com/v1 "},
			"ProviderURL", "idemq:providerUrl", false},
		{"a number as the provider URL",
			map[string]any{"idemq:providerUrl": 42},
			"ProviderURL", "idemq:providerUrl", false},
		{"no namespace",
			map[string]any{"idemq:namespace": nil},
			"Request.Namespace", "idemq:namespace", false},
		{"an empty namespace",
			map[string]any{"idemq:namespace": ""},
			"Request.Namespace", "idemq:namespace", false},
		{"a blank namespace",
			map[string]any{"idemq:namespace": " "},
			"Request.Namespace", "idemq:namespace", false},
		{"a key field with an empty name",
			map[string]any{"idemq:keyField": "request..id"},
			"Request.KeyField", "idemq:keyField", false},
		{"a queue ARN as the alarm topic",
			map[string]any{"idemq:alarmTopicArn": "arn:aws:sqs:us-east-1:123456789012:alerts"},
			"", "idemq:alarmTopicArn", false},
		{"a topic name as the alarm topic",
			map[string]any{"idemq:alarmTopicArn": "alerts"},
			"", "idemq:alarmTopicArn", false},
		{"a topic ARN without the account",
			map[string]any{"idemq:alarmTopicArn": "arn:aws:sns:us-east-1::alerts"},
			"", "idemq:alarmTopicArn", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := synthRefused(t, c.context, c.field)
			if !strings.Contains(err.Error(), c.names) {
				t.Errorf("the message does not name %s: %v", c.names, err)
			}
			if got := errors.Is(err, queue.ErrInvalidSettings); got != c.idem {
				t.Errorf("errors.Is(err, queue.ErrInvalidSettings) = %v, want %v", got, c.idem)
			}
			t.Log(err)
		})
	}
}

// synthRefused builds the stack with context over cdk.json's and returns
// the error it must fail with: a *SettingError for field, the app left
// without a child.
func synthRefused(t *testing.T, context map[string]any, field string) error {
	t.Helper()
	app := newApp(t, context)
	stack, err := idemqcdk.NewStack(app, jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."})
	var se *idemqcdk.SettingError
	if !errors.As(err, &se) {
		t.Fatalf("NewStack: got %v, want a *SettingError", err)
	}
	if stack != nil || len(*app.Node().Children()) != 0 {
		t.Errorf("NewStack added to the app before failing")
	}
	if se.Field != field {
		t.Errorf("Field = %q, want %q", se.Field, field)
	}
	return err
}

// TestNoWorkerPackage checks the message when there is neither lambda/ to
// build nor a prebuilt bootstrap.
func TestNoWorkerPackage(t *testing.T) {
	ctx := appContext(t, nil)
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
	_, err := idemqcdk.NewStack(app, jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: t.TempDir()})
	var se *idemqcdk.SettingError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "idemq:bootstrapDir") {
		t.Fatalf("NewStack: got %v, want a *SettingError pointing at idemq:bootstrapDir", err)
	}
}
