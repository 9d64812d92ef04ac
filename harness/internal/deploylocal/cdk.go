package deploylocal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Account and Region are moto's default account and the region deployed to.
const (
	Account = "123456789012"
	Region  = "us-east-1"
	// StackName is the stack cdk.json's app adds.
	StackName = "Idemq"
	// ExampleStackName is the stack of the example app
	// (examples/existing-app).
	ExampleStackName = "Orders"
)

// stackSpec is what differs between the two stacks Run deploys.
type stackSpec struct {
	name    string   // the stack's
	outputs []string // the outputs its template must have
	// retainedDLQ says the dead-letter queue is kept when the stack is
	// deleted (the reference stack's; the example's is the team's own).
	retainedDLQ bool
	// ownQueueGrants are the actions on the queue the team's role had
	// before idemq (the example's SqsEventSource's grantConsumeMessages).
	ownQueueGrants []string
}

var (
	referenceStack = stackSpec{name: StackName, retainedDLQ: true, outputs: []string{
		"QueueUrl", "QueueArn", "DeadLetterQueueUrl", "DeadLetterQueueArn", "RedrivePolicyArn", "TableName", "FunctionName", "FunctionArn"}}
	exampleStack = stackSpec{name: ExampleStackName, outputs: []string{"RecordExpiry"},
		ownQueueGrants: []string{"sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueUrl", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}}
)

// CDKHint says how to get the pinned CDK CLI.
const CDKHint = "run `make deps-cdk` (npm ci at the repository root installs the pinned aws-cdk)"

// cli runs the pinned CDK CLI in the repository's root against moto.
type cli struct {
	path, root string
	env        []string
	out        io.Writer
}

func newCLI(path, root, endpoint string, out io.Writer) (*cli, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("deploylocal: no CDK CLI at %s: %s", path, CDKHint)
	}
	env := append(os.Environ(),
		"AWS_ENDPOINT_URL="+endpoint,
		"AWS_ACCESS_KEY_ID=idemqlocal", "AWS_SECRET_ACCESS_KEY=idemqlocal",
		"AWS_REGION="+Region, "AWS_DEFAULT_REGION="+Region,
		"AWS_PROFILE=", "AWS_SESSION_TOKEN=",
		"CDK_DISABLE_CLI_TELEMETRY=true", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1",
	)
	return &cli{path: path, root: root, env: env, out: out}, nil
}

// in is the CLI run in dir (a CDK app's folder, with its cdk.json).
func (c *cli) in(dir string) *cli {
	d := *c
	d.root = dir
	return &d
}

// run runs cdk with args and the flags every command here takes.
func (c *cli) run(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, c.path, append(args, "--no-notices", "--no-version-reporting", "--ci")...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = c.root, c.env, c.out, c.out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("deploylocal: cdk %s: %w (its output is in the log)", args[0], err)
	}
	return nil
}

// template is a CloudFormation template, as JSON.
type template struct {
	Resources map[string]resource `json:"Resources"`
	Outputs   map[string]any      `json:"Outputs"`
}

type resource struct {
	Type           string         `json:"Type"`
	Properties     map[string]any `json:"Properties"`
	DeletionPolicy string         `json:"DeletionPolicy"`
}

// one is the logical id and resource of the only resource of type typ.
func (t *template) one(typ string, pick func(resource) bool) (string, resource, error) {
	var id string
	for k, r := range t.Resources {
		if r.Type == typ && (pick == nil || pick(r)) {
			if id != "" {
				return "", resource{}, fmt.Errorf("deploylocal: the template has more than one %s", typ)
			}
			id = k
		}
	}
	if id == "" {
		return "", resource{}, fmt.Errorf("deploylocal: the template has no %s", typ)
	}
	return id, t.Resources[id], nil
}

func templatePath(asm, stack string) string { return filepath.Join(asm, stack+".template.json") }

// readTemplate reads stack's template from the cloud assembly in asm.
func readTemplate(asm, stack string) (*template, error) {
	b, err := os.ReadFile(templatePath(asm, stack))
	if err != nil {
		return nil, fmt.Errorf("deploylocal: %w", err)
	}
	var t template
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("deploylocal: %s: %w", templatePath(asm, stack), err)
	}
	return &t, nil
}

// patchForMoto rewrites the assembly's template for moto's CloudFormation,
// which has no AWS::DynamoDB::GlobalTable: the table becomes an
// AWS::DynamoDB::Table with the global table's properties and those of its
// one replica (point-in-time recovery, deletion protection) at the top.
// moto skips alarms, so the dashboard's references to their ARNs (its
// alarm status widget's) would not resolve: each becomes the ARN the alarm
// would have, spelt out. moto keeps no value for the BootstrapVersion
// parameter (an SSM parameter's type), and an update that keeps its
// previous value, as the CLI asks, fails on it (a KeyError in moto): the
// parameter and the rule that reads it go. Nothing else changes.
func patchForMoto(asm, stack string) error {
	raw, err := os.ReadFile(templatePath(asm, stack))
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	if params, _ := doc["Parameters"].(map[string]any); params != nil {
		delete(params, "BootstrapVersion")
	}
	if rules, _ := doc["Rules"].(map[string]any); rules != nil {
		delete(rules, "CheckBootstrapVersion")
	}
	resources, _ := doc["Resources"].(map[string]any)
	for id, r := range resources {
		r, _ := r.(map[string]any)
		if r["Type"] != "AWS::DynamoDB::GlobalTable" {
			continue
		}
		props, _ := r["Properties"].(map[string]any)
		replicas, _ := props["Replicas"].([]any)
		if len(replicas) != 1 {
			return fmt.Errorf("deploylocal: table %s has %d replicas; the plain table stands for one", id, len(replicas))
		}
		replica, _ := replicas[0].(map[string]any)
		delete(props, "Replicas")
		for k, v := range replica {
			if k != "Region" {
				props[k] = v
			}
		}
		r["Type"] = "AWS::DynamoDB::Table"
	}
	for _, r := range resources {
		r, _ := r.(map[string]any)
		if r["Type"] != "AWS::CloudWatch::Dashboard" {
			continue
		}
		props, _ := r["Properties"].(map[string]any)
		props["DashboardBody"] = spellAlarmARNs(props["DashboardBody"], resources)
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(templatePath(asm, stack), out, 0o644)
}

// spellAlarmARNs is v with every {"Fn::GetAtt": [ALARM, "Arn"]} naming an
// AWS::CloudWatch::Alarm of resources replaced by an alarm ARN string.
func spellAlarmARNs(v any, resources map[string]any) any {
	switch v := v.(type) {
	case map[string]any:
		if att, ok := v["Fn::GetAtt"].([]any); ok && len(att) == 2 && att[1] == "Arn" {
			id, _ := att[0].(string)
			if r, _ := resources[id].(map[string]any); r["Type"] == "AWS::CloudWatch::Alarm" {
				return "arn:aws:cloudwatch:" + Region + ":" + Account + ":alarm:" + id
			}
		}
		for k, x := range v {
			v[k] = spellAlarmARNs(x, resources)
		}
	case []any:
		for i, x := range v {
			v[i] = spellAlarmARNs(x, resources)
		}
	}
	return v
}
