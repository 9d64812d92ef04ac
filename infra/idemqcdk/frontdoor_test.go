package idemqcdk_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// TestFrontDoor checks idemq:frontDoor: off by default (one function, no
// URL); on, a second function from the same code in front-door mode, with
// a function URL under AWS_IAM, its own role allowed exactly its calls, an
// output with the URL; idemq:frontDoorPublic turns the URL's auth to
// NONE; a key field path is refused with it.
func TestFrontDoor(t *testing.T) {
	t.Run("off by default", func(t *testing.T) {
		tpl := synth(t, nil)
		check(t, "one function, no URL", func() {
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(1))
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::Url"), jsii.Number(0))
		})
		if outputs := *tpl.FindOutputs(jsii.String("FrontDoorUrl"), nil); len(outputs) != 0 {
			t.Errorf("outputs %v without idemq:frontDoor", outputs)
		}
	})
	t.Run("on", func(t *testing.T) {
		tpl := synth(t, map[string]any{"idemq:frontDoor": true})
		check(t, "two functions, one URL", func() {
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(2))
			tpl.ResourceCountIs(jsii.String("AWS::Lambda::Url"), jsii.Number(1))
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Url"), obj{"AuthType": "AWS_IAM"})
		})
		front := frontFunction(t, tpl)
		queue := *tpl.GetResourceId(jsii.String("AWS::SQS::Queue"), obj{"Properties": obj{"RedrivePolicy": assertions.Match_AnyValue()}})
		table := *tpl.GetResourceId(jsii.String("AWS::DynamoDB::GlobalTable"), nil)
		bucket := *tpl.GetResourceId(jsii.String("AWS::S3::Bucket"), nil)
		check(t, "front door's environment", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{
					"IDEMQ_MODE": "frontdoor", "IDEMQ_FRONTDOOR_QUEUE_URL": ref(queue), "IDEMQ_TABLE": ref(table),
					"IDEMQ_NAMESPACE": "idemq", "IDEMQ_KEY_FIELD": "idempotency_key", "IDEMQ_BLOB_BUCKET": ref(bucket),
					"IDEMQ_PROVIDER_URL": assertions.Match_Absent(), "IDEMQ_FRONTDOOR_SCOPE": assertions.Match_Absent(),
				}},
			})
		})
		// The front door's role: exactly its calls, on its resources.
		role := front.role
		var got []string
		for _, p := range *tpl.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
			var policy struct {
				Properties struct {
					Roles          []map[string]string
					PolicyDocument struct{ Statement []map[string]any }
				}
			}
			raw, _ := json.Marshal(p)
			if err := json.Unmarshal(raw, &policy); err != nil || len(policy.Properties.Roles) != 1 || policy.Properties.Roles[0]["Ref"] != role {
				continue
			}
			for _, s := range policy.Properties.PolicyDocument.Statement {
				actions, _ := json.Marshal(s["Action"])
				resource, _ := json.Marshal(s["Resource"])
				got = append(got, s["Sid"].(string)+" "+string(actions)+" "+string(resource))
			}
		}
		slices.Sort(got)
		want := []string{
			`ReadResultBlobs "s3:GetObject" {"Fn::Join":["",[{"Fn::GetAtt":["` + bucket + `","Arn"]},"/idemq/*"]]}`,
			`RecordTable ["dynamodb:DeleteItem","dynamodb:GetItem","dynamodb:PutItem","dynamodb:UpdateItem"] {"Fn::GetAtt":["` + table + `","Arn"]}`,
			`SendToQueue "sqs:SendMessage" {"Fn::GetAtt":["` + queue + `","Arn"]}`,
			`WriteLogs ["logs:CreateLogStream","logs:PutLogEvents"] {"Fn::GetAtt":["` + front.logs + `","Arn"]}`,
		}
		if !slices.Equal(got, want) {
			t.Errorf("the front door's role allows\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
		if outputs := *tpl.FindOutputs(jsii.String("FrontDoorUrl"), nil); len(outputs) != 1 {
			t.Errorf("outputs %v, want FrontDoorUrl", outputs)
		}
	})
	t.Run("public", func(t *testing.T) {
		tpl := synth(t, map[string]any{"idemq:frontDoor": true, "idemq:frontDoorPublic": true})
		check(t, "AuthType NONE", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Url"), obj{"AuthType": "NONE"})
		})
		// No IAM caller to scope keys by: the function is told so, or it
		// would refuse every request.
		check(t, "one key space", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{"IDEMQ_MODE": "frontdoor", "IDEMQ_FRONTDOOR_SCOPE": "none"}},
			})
		})
	})
	// idemq:frontDoorScope=session narrows the keys to the role session;
	// role is the default, written as nothing.
	t.Run("session scope", func(t *testing.T) {
		for scope, want := range map[string]any{"session": "iam-session", "role": assertions.Match_Absent()} {
			tpl := synth(t, map[string]any{"idemq:frontDoor": true, "idemq:frontDoorScope": scope})
			check(t, "scope "+scope, func() {
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
					"Environment": obj{"Variables": obj{"IDEMQ_MODE": "frontdoor", "IDEMQ_FRONTDOOR_SCOPE": want}},
				})
				tpl.HasResourceProperties(jsii.String("AWS::Lambda::Url"), obj{"AuthType": "AWS_IAM"})
			})
		}
	})
	t.Run("refused", func(t *testing.T) {
		synthRefused(t, map[string]any{"idemq:frontDoorPublic": true}, "FrontDoorPublic")
		synthRefused(t, map[string]any{"idemq:frontDoorScope": "session"}, "FrontDoorScope")
		synthRefused(t, map[string]any{"idemq:frontDoor": true, "idemq:frontDoorScope": "user"}, "FrontDoorScope")
		synthRefused(t, map[string]any{"idemq:frontDoor": true, "idemq:frontDoorPublic": true, "idemq:frontDoorScope": "session"}, "FrontDoorScope")
	})
	// The front door serves every key rule the worker does: a path into
	// the body is passed to it as to the worker.
	t.Run("a path key field", func(t *testing.T) {
		tpl := synth(t, map[string]any{"idemq:frontDoor": true, "idemq:keyField": "request.id"})
		check(t, "front door's key field", func() {
			tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
				"Environment": obj{"Variables": obj{"IDEMQ_MODE": "frontdoor", "IDEMQ_KEY_FIELD": "request.id"}},
			})
		})
	})
}

// frontParts are the logical ids of the front door's function, role and
// log group.
type frontParts struct{ function, role, logs string }

// frontFunction finds the front door's function (IDEMQ_MODE frontdoor)
// and its role and log group.
func frontFunction(tb testing.TB, tpl assertions.Template) frontParts {
	tb.Helper()
	for id, fn := range *tpl.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
		var r struct {
			Properties struct {
				Environment   struct{ Variables map[string]any }
				Role          map[string][]string
				LoggingConfig struct{ LogGroup map[string]string }
			}
		}
		raw, _ := json.Marshal(fn)
		if err := json.Unmarshal(raw, &r); err != nil || r.Properties.Environment.Variables["IDEMQ_MODE"] != "frontdoor" {
			continue
		}
		return frontParts{function: id, role: r.Properties.Role["Fn::GetAtt"][0], logs: r.Properties.LoggingConfig.LogGroup["Ref"]}
	}
	tb.Fatal("no function with IDEMQ_MODE frontdoor")
	return frontParts{}
}
