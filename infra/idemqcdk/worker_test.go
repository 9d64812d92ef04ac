package idemqcdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
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
	if err := (&idemqcdk.WorkerProps{Request: request.Identity{Namespace: "jobs"}}).Check(); err != nil {
		t.Errorf("WorkerProps with a namespace alone: %v", err)
	}
}

// TestNamespaceRequired checks that a Worker has no namespace but the one
// it is given: none, blank or a token (a value that can change) fails
// Check naming Request.Namespace, and NewWorker fails the synth with the
// same message.
func TestNamespaceRequired(t *testing.T) {
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	generated := awscdk.NewCfnResource(stack, jsii.String("Thing"), &awscdk.CfnResourceProps{Type: jsii.String("AWS::SQS::Queue")}).Ref()
	for name, ns := range map[string]string{"unset": "", "blank": "  ", "a token": *generated, "spaces around": " jobs"} {
		t.Run(name, func(t *testing.T) {
			err := (&idemqcdk.WorkerProps{Request: request.Identity{Namespace: ns}}).Check()
			var se *idemqcdk.SettingError
			if !errors.As(err, &se) || se.Field != "Request.Namespace" || !strings.Contains(err.Error(), "Request.Namespace") {
				t.Fatalf("Check: got %v, want a *SettingError naming Request.Namespace", err)
			}
			t.Log(err)
			w := idemqcdk.NewWorker(stack, jsii.String("Jobs"+strings.ReplaceAll(name, " ", "")), &idemqcdk.WorkerProps{
				Code: awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil), Request: request.Identity{Namespace: ns},
			})
			if msg := refusal(t, w.Construct); msg != err.Error() {
				t.Errorf("NewWorker: synth error %q, want Check's %q", msg, err)
			}
		})
	}
}

// TestNewWorkerRefusesBadProps checks the refusals: a panic where nothing
// can be made (no code), a synth error naming the setting otherwise.
func TestNewWorkerRefusesBadProps(t *testing.T) {
	code := awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil)
	cases := []struct {
		name  string
		props *idemqcdk.WorkerProps
		want  string // in the panic's or the synth error's message
	}{
		{"no code", &idemqcdk.WorkerProps{Request: request.Identity{Namespace: "jobs"}}, "Code"},
		{"nil props", nil, "Code"},
		{"visibility under the timeout", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, Timeout: time.Minute, VisibilityTimeout: time.Second}, "VisibilityTimeout"},
		{"a reserved variable", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, Environment: map[string]string{"IDEMQ_TABLE": "x"}}, "IDEMQ_TABLE"},
		{"the secret's variable set by hand", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"},
			Environment: map[string]string{"IDEMQ_PROVIDER_API_KEY_SECRET": "idemq/provider-key"}}, "IDEMQ_PROVIDER_API_KEY_SECRET"},
		{"the provider URL as a variable", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"},
			Environment: map[string]string{"IDEMQ_PROVIDER_URL": "https://api.openai.com/v1"}}, "ProviderURL"},
		{"a provider URL that is not a URL", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, ProviderURL: "not-a-url"}, "ProviderURL"},
		{"the API key in plain text", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"},
			Environment: map[string]string{"IDEMQ_PROVIDER_API_KEY": "sk-plain"}}, "IDEMQ_PROVIDER_API_KEY"},
		{"the lease as a variable", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, Environment: map[string]string{"IDEMQ_LEASE": "30s"}}, "IDEMQ_LEASE"},
		{"the heartbeat as a variable", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, Environment: map[string]string{"IDEMQ_HEARTBEAT": "10s"}}, "IDEMQ_HEARTBEAT"},
		{"the queue's settings as a variable", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"},
			Environment: map[string]string{"IDEMQ_QUEUE": `{"retention":"1h0m0s"}`}}, "IDEMQ_QUEUE"},
		{"a variable of a later worker", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs"}, Environment: map[string]string{"IDEMQ_SOMETHING_NEW": "x"}}, "IDEMQ_SOMETHING_NEW"},
		{"a key field with an empty name", &idemqcdk.WorkerProps{Code: code, Request: request.Identity{Namespace: "jobs", KeyField: "order..id"}}, "Request.KeyField"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stack := awscdk.NewStack(newApp(t, nil), jsii.String("S"), nil)
			if c.props != nil && c.props.Code != nil {
				p := *c.props
				p.Code = awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil) // one asset per stack
				c.props = &p
			}
			if c.props == nil || c.props.Code == nil {
				defer func() {
					if r := recover(); !strings.HasPrefix(fmt.Sprint(r), "idemqcdk: ") || !strings.Contains(fmt.Sprint(r), c.want) {
						t.Errorf("NewWorker panicked with %v, want idemqcdk's panic naming %s", r, c.want)
					}
				}()
			}
			w := idemqcdk.NewWorker(stack, jsii.String("Worker"), c.props)
			if msg := refusal(t, w.Construct); !strings.Contains(msg, c.want) {
				t.Errorf("NewWorker: synth error %s, want a message naming %s", msg, c.want)
			}
		})
	}
}

// TestWorkerInUsersStack checks the construct on its own, as a user's app
// would use it, with WorkerProps' defaults.
func TestWorkerInUsersStack(t *testing.T) {
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	w := idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
		Code:    awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		Request: request.Identity{Namespace: "jobs", KeyField: "order_id"},
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
				"IDEMQ_CLOCK_SKEW":    "500ms",
				"IDEMQ_BACKOFF":       "true",
				"IDEMQ_KEY_FIELD":     "order_id",
				"IDEMQ_NAMESPACE":     "jobs",
				"IDEMQ_QUEUE":         defaultQueueEnv,
				"IDEMQ_EMF_NAMESPACE": "idemq",
				"IDEMQ_BLOB_BUCKET":   assertions.Match_AnyValue(),
				"IDEMQ_BLOB_PREFIX":   "idemq/",
			})},
		})
	})
	wantGrants(t, tpl, resourceIDs(t, tpl), true)
	if outputs := *tpl.FindOutputs(jsii.String("*"), nil); len(outputs) != 0 {
		t.Errorf("the construct added outputs: %v", outputs)
	}
}
