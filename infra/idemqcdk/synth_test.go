package idemqcdk_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// TestMain stops the jsii runtime (a node process every CDK call goes
// through) once, after all tests.
func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}

// cdkJSON is the repository's cdk.json, whose context `cdk synth` gives the
// app. go test does not read it, so the tests load it themselves.
const cdkJSON = "../../cdk.json"

// appContext is the context `cdk synth` gives the app: cdk.json's
// "context", its versionReporting setting and the metadata the CLI asks for
// by default, with overrides on top.
func appContext(tb testing.TB, overrides map[string]any) map[string]any {
	tb.Helper()
	raw, err := os.ReadFile(cdkJSON)
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Context          map[string]any `json:"context"`
		VersionReporting *bool          `json:"versionReporting"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatalf("%s: %v", cdkJSON, err)
	}
	if doc.Context == nil {
		tb.Fatalf("%s has no context", cdkJSON)
	}
	if doc.VersionReporting != nil {
		doc.Context["aws:cdk:version-reporting"] = *doc.VersionReporting
	}
	doc.Context["aws:cdk:enable-path-metadata"] = true
	doc.Context["aws:cdk:enable-asset-metadata"] = true
	maps.Copy(doc.Context, overrides)
	return doc.Context
}

// prebuilt is a directory holding a stand-in bootstrap, so that synthesizing
// the stack builds nothing (the build is tested in gobuild_test.go).
func prebuilt(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// newApp is an app with the cdk.json context plus overrides, writing its
// assembly to a temporary directory.
func newApp(tb testing.TB, overrides map[string]any) awscdk.App {
	tb.Helper()
	ctx := appContext(tb, overrides)
	if _, ok := ctx["idemq:bootstrapDir"]; !ok {
		ctx["idemq:bootstrapDir"] = prebuilt(tb)
	}
	return awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(tb.TempDir())})
}

// newStack is the stack `cdk synth` would make with cdk.json's context plus
// overrides; an unexpected error fails the test.
func newStack(tb testing.TB, overrides map[string]any) awscdk.Stack {
	tb.Helper()
	stack, err := idemqcdk.NewStack(newApp(tb, overrides), jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."})
	if err != nil {
		tb.Fatalf("NewStack: %v", err)
	}
	return stack
}

// synth is newStack's template.
func synth(tb testing.TB, overrides map[string]any) assertions.Template {
	tb.Helper()
	return assertions.Template_FromStack(newStack(tb, overrides), nil)
}

// check runs one assertion. The assertions package panics on a mismatch;
// check reports the panic as an error of tb, so the other checks still run.
func check(tb testing.TB, name string, assert func()) {
	tb.Helper()
	defer func() {
		if r := recover(); r != nil {
			tb.Errorf("%s: %v", name, r)
		}
	}()
	assert()
}

// ids are the logical ids of the stack's resources.
type ids struct {
	table, queue, dlq, logs, role, function string
	bucket                                  string // "": no bucket (idemq:blobs false)
	// blobPrefix is the results' key prefix the function is given
	// (IDEMQ_BLOB_PREFIX); "" without a bucket.
	blobPrefix string
}

// blobObjects is the resource of the objects under prefix in the bucket of
// logical id bucket, as a policy names it.
func blobObjects(bucket, prefix string) obj {
	return obj{"Fn::Join": arr{"", arr{getAtt(bucket, "Arn"), "/" + prefix + "*"}}}
}

// blobPrefixOf is the IDEMQ_BLOB_PREFIX of the template's function, or "".
func blobPrefixOf(tpl assertions.Template) string {
	for _, fn := range *tpl.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
		var r struct {
			Properties struct {
				Environment struct{ Variables map[string]any }
			}
		}
		if err := json.Unmarshal([]byte(jsonString(fn)), &r); err == nil {
			if p, ok := r.Properties.Environment.Variables["IDEMQ_BLOB_PREFIX"].(string); ok {
				return p
			}
		}
	}
	return ""
}

// resourceIDs finds the stack's resources, each the only one of its kind.
func resourceIDs(tb testing.TB, tpl assertions.Template) ids {
	tb.Helper()
	var r ids
	check(tb, "resource ids", func() {
		id := func(typ string, props any) string { return *tpl.GetResourceId(jsii.String(typ), props) }
		if len(*tpl.FindResources(jsii.String("AWS::DynamoDB::GlobalTable"), nil)) > 0 {
			r.table = id("AWS::DynamoDB::GlobalTable", nil) // the reference stack's (KeepV020)
		} else {
			r.table = id("AWS::DynamoDB::Table", nil)
		}
		r.queue = id("AWS::SQS::Queue", obj{"Properties": obj{"RedrivePolicy": assertions.Match_AnyValue()}})
		r.dlq = id("AWS::SQS::Queue", obj{"Properties": obj{"RedrivePolicy": assertions.Match_Absent()}})
		r.logs = id("AWS::Logs::LogGroup", nil)
		r.role = id("AWS::IAM::Role", nil)
		r.function = id("AWS::Lambda::Function", nil)
		if len(*tpl.FindResources(jsii.String("AWS::S3::Bucket"), nil)) > 0 {
			r.bucket = id("AWS::S3::Bucket", nil)
			r.blobPrefix = blobPrefixOf(tpl)
		}
	})
	return r
}

// obj is a JSON object in a template pattern.
type obj = map[string]any

// arr is a JSON array in a template pattern.
type arr = []any

func getAtt(id, attr string) obj { return obj{"Fn::GetAtt": arr{id, attr}} }

func ref(id string) obj { return obj{"Ref": id} }
