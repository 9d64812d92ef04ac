package idemqcdk_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// v020Templates are the templates v0.2.0 (commit 4d5b24f) synthesized,
// each once with that commit's CDK CLI run (`cdk synth`, its cdk.json):
// the reference stack, and examples/existing-app, the Attachment.
const (
	v020Reference = "testdata/v0.2.0/Idemq.template.json"
	v020Example   = "testdata/v0.2.0/Orders.template.json"
)

// resourceTypes are the logical ids of a template's resources, with their
// types.
func resourceTypes(t *testing.T, doc map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	res, _ := doc["Resources"].(map[string]any)
	for id, r := range res {
		r, _ := r.(map[string]any)
		out[id], _ = r["Type"].(string)
	}
	if len(out) == 0 {
		t.Fatal("a template without resources")
	}
	return out
}

// readTemplate reads the template at path.
func readTemplate(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// sameResources checks that every resource of v0.2.0's template is in
// today's with its logical id and type (CloudFormation replaces a resource
// whose logical id changed, creating the new one before deleting the old,
// and refuses one whose type changed), naming mustKeep's types first, and
// reports today's additions.
func sameResources(t *testing.T, old, now map[string]string, mustKeep ...string) {
	t.Helper()
	for _, typ := range mustKeep {
		var ids []string
		for id, ty := range old {
			if ty == typ {
				ids = append(ids, id)
			}
		}
		if len(ids) != 1 {
			t.Fatalf("v0.2.0's template has %d %s, want 1", len(ids), typ)
		}
		if now[ids[0]] != typ {
			t.Errorf("v0.2.0's %s %s is %q now: the upgrade would not update it in place", typ, ids[0], now[ids[0]])
		}
	}
	for id, typ := range old {
		if now[id] != typ {
			t.Errorf("v0.2.0's %s %s is %q now", typ, id, now[id])
		}
	}
	for id, typ := range now {
		if _, ok := old[id]; !ok {
			t.Errorf("%s %s is new since v0.2.0", typ, id)
		}
	}
}

// TestReferenceStackUpgradesInPlace compares today's reference stack with
// the one v0.2.0 deployed: the same resources, each at its logical id,
// with its type. Above all the record table (a new table would forget every
// record, and every request in flight would run again) and the event
// source mapping.
func TestReferenceStackUpgradesInPlace(t *testing.T) {
	now := resourceTypes(t, *synth(t, nil).ToJSON())
	sameResources(t, resourceTypes(t, readTemplate(t, v020Reference)), now, "AWS::DynamoDB::GlobalTable", "AWS::Lambda::EventSourceMapping")
}

// TestAttachmentUpgradesInPlace builds v0.2.0's example app (a team's
// queue and function, idemq attached) with today's Attachment and the
// props that keep what v0.2.0 deployed and did (KeepV020, ResultBucket, a
// cap of 10): every resource v0.2.0 deployed is there at its logical id,
// with its type; without KeepV020, the table's type would change, which
// CloudFormation refuses before it changes anything.
func TestAttachmentUpgradesInPlace(t *testing.T) {
	old := resourceTypes(t, readTemplate(t, v020Example))
	build := func(props idemqcdk.AttachmentProps) map[string]string {
		// The example's cdk.json sets no feature flags; the root's would
		// give the function a log group of its own.
		app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
		stack := awscdk.NewStack(app, jsii.String("Orders"), nil)
		dlq := awssqs.NewQueue(stack, jsii.String("OrdersDLQ"), &awssqs.QueueProps{RetentionPeriod: awscdk.Duration_Days(jsii.Number(14))})
		orders := awssqs.NewQueue(stack, jsii.String("Orders"), &awssqs.QueueProps{
			VisibilityTimeout: awscdk.Duration_Minutes(jsii.Number(6)),
			DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(5)},
		})
		handler := awslambda.NewFunction(stack, jsii.String("OrderHandler"), &awslambda.FunctionProps{
			Runtime: awslambda.Runtime_PROVIDED_AL2023(), Architecture: awslambda.Architecture_ARM_64(), Handler: jsii.String("bootstrap"),
			Code: awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil), Timeout: awscdk.Duration_Minutes(jsii.Number(1)),
		})
		props.Function, props.Queue, props.Request = handler, orders, &request.Identity{Namespace: "orders"}
		idemq := idemqcdk.NewAttachment(stack, jsii.String("Idemq"), &props)
		awscdk.NewCfnOutput(stack, jsii.String("RecordExpiry"), &awscdk.CfnOutputProps{Value: jsii.String(idemq.RecordExpiry.String())})
		noNotes(t, stack)
		return resourceTypes(t, *assertions.Template_FromStack(stack, nil).ToJSON())
	}
	kept := build(idemqcdk.AttachmentProps{KeepV020: jsii.Bool(true), ResultBucket: jsii.Bool(true), MaxConcurrency: jsii.Number(10)})
	sameResources(t, old, kept, "AWS::DynamoDB::GlobalTable", "AWS::Lambda::EventSourceMapping")

	// Without KeepV020 the table keeps its logical id with another type:
	// CloudFormation refuses the update whole, rather than replacing it.
	plain := build(idemqcdk.AttachmentProps{})
	for id, typ := range old {
		if typ == "AWS::DynamoDB::GlobalTable" && plain[id] != "AWS::DynamoDB::Table" {
			t.Errorf("without KeepV020, the table %s is %q, want the same logical id as an AWS::DynamoDB::Table", id, plain[id])
		}
	}
	if slices.Contains(slicesOf(plain), "AWS::IAM::ManagedPolicy") {
		t.Error("without KeepV020, a managed policy")
	}
}

// slicesOf is m's values.
func slicesOf(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
