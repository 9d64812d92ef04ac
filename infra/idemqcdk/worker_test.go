package idemqcdk_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// TestCheckNamesFields checks that WorkerProps.Check, for users of the
// construct, names WorkerProps fields.
func TestCheckNamesFields(t *testing.T) {
	p := idemqcdk.WorkerProps{Timeout: time.Minute, VisibilityTimeout: 30 * time.Second}
	err := p.Check()
	var se *idemqcdk.SettingError
	if !errors.As(err, &se) || se.Field != "VisibilityTimeout" {
		t.Fatalf("Check: got %v, want a *SettingError for VisibilityTimeout", err)
	}
	if !strings.Contains(err.Error(), "VisibilityTimeout 30s is shorter than Timeout 1m0s") {
		t.Errorf("message: %v", err)
	}
	if err := (&idemqcdk.WorkerProps{}).Check(); err != nil {
		t.Errorf("zero WorkerProps: %v", err)
	}
}

// TestNewWorkerPanicsOnBadProps checks the wiring-time panics.
func TestNewWorkerPanicsOnBadProps(t *testing.T) {
	code := awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil)
	cases := []struct {
		name  string
		props *idemqcdk.WorkerProps
	}{
		{"no code", &idemqcdk.WorkerProps{}},
		{"nil props", nil},
		{"visibility under the timeout", &idemqcdk.WorkerProps{Code: code, Timeout: time.Minute, VisibilityTimeout: time.Second}},
		{"a reserved variable", &idemqcdk.WorkerProps{Code: code, Environment: map[string]string{idemqcdk.EnvTable: "x"}}},
		{"the secret's variable set by hand", &idemqcdk.WorkerProps{Code: code, Environment: map[string]string{idemqcdk.EnvProviderAPIKeySecret: "idemq/provider-key"}}},
		{"the provider URL as a variable", &idemqcdk.WorkerProps{Code: code, Environment: map[string]string{idemqcdk.EnvProviderURL: "https://api.openai.com/v1"}}},
		{"a provider URL that is not a URL", &idemqcdk.WorkerProps{Code: code, ProviderURL: "not-a-url"}},
		{"the API key in plain text", &idemqcdk.WorkerProps{Code: code, Environment: map[string]string{idemqcdk.EnvProviderAPIKey: "sk-plain"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewWorker did not panic")
				}
			}()
			stack := awscdk.NewStack(newApp(t, nil), jsii.String("S"), nil)
			idemqcdk.NewWorker(stack, "Worker", c.props)
		})
	}
}

// TestWorkerInUsersStack checks the construct on its own, as a user's app
// would use it, with WorkerProps' defaults.
func TestWorkerInUsersStack(t *testing.T) {
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	w := idemqcdk.NewWorker(stack, "Jobs", &idemqcdk.WorkerProps{
		Code:     awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		KeyField: "order_id",
	})
	if w.RecordExpiry != 541*time.Hour+15*time.Minute {
		t.Errorf("RecordExpiry = %s, want 541h15m0s", w.RecordExpiry)
	}
	tpl := assertions.Template_FromStack(stack, nil)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": assertions.Match_ObjectEquals(&obj{
				"IDEMQ_TABLE":         assertions.Match_AnyValue(),
				"IDEMQ_RECORD_EXPIRY": "541h15m0s",
				"IDEMQ_BACKOFF":       "true",
				"IDEMQ_KEY_FIELD":     "order_id",
				"IDEMQ_NAMESPACE":     "Users/Jobs",
			})},
		})
	})
	wantGrants(t, tpl, resourceIDs(t, tpl), true)
	if outputs := *tpl.FindOutputs(jsii.String("*"), nil); len(outputs) != 0 {
		t.Errorf("the construct added outputs: %v", outputs)
	}
}
