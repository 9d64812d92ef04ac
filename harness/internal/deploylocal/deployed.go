package deploylocal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// clients talk to moto.
type clients struct {
	cfn    *cloudformation.Client
	lambda *lambda.Client
	iam    *iam.Client
	sqs    *sqs.Client
	dynamo *dynamodb.Client
}

func newClients(endpoint string) clients {
	cfg := aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", ""),
		BaseEndpoint: aws.String(endpoint),
	}
	return clients{
		cfn:    cloudformation.NewFromConfig(cfg),
		lambda: lambda.NewFromConfig(cfg),
		iam:    iam.NewFromConfig(cfg),
		sqs:    sqs.NewFromConfig(cfg),
		dynamo: dynamodb.NewFromConfig(cfg),
	}
}

// deployed is what the stack deployed, as moto reports it.
type deployed struct {
	physical map[string]string // logical id → physical id

	table, function, role   string
	mapping                 string // the event source mapping's UUID
	queueURL, dlqURL        string // moto's URLs for the queues
	queueARN                string
	env                     map[string]string // the function's environment
	timeout                 time.Duration
	memoryMB                int
	batchSize               int
	window                  time.Duration
	assetBucket, assetKey   string
	arch                    string // the template's: moto reports x86_64 for all
	queueID, dlqID, tableID string
	bucket                  string // the result bucket; "": none (checkBucket)
}

// describe reads the deployed stack and checks it against the synthesized
// template tpl, returning every mismatch as a problem.
func describe(ctx context.Context, c clients, tpl *template, spec stackSpec) (*deployed, []string, error) {
	d := &deployed{physical: map[string]string{}}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	out, err := c.cfn.ListStackResources(ctx, &cloudformation.ListStackResourcesInput{StackName: aws.String(spec.name)})
	if err != nil {
		return nil, nil, fmt.Errorf("deploylocal: list the stack's resources: %w", err)
	}
	for _, r := range out.StackResourceSummaries {
		if id := aws.ToString(r.LogicalResourceId); id != "" {
			d.physical[id] = aws.ToString(r.PhysicalResourceId)
		}
	}
	for _, typ := range []string{"AWS::DynamoDB::GlobalTable", "AWS::DynamoDB::Table", "AWS::SQS::Queue", "AWS::Lambda::Function", "AWS::Lambda::EventSourceMapping",
		"AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::Logs::LogGroup", "AWS::CloudWatch::Dashboard",
		"AWS::S3::Bucket"} { // moto deploys no AWS::S3::BucketPolicy (nor AWS::SQS::QueuePolicy)
		for id, r := range tpl.Resources {
			if r.Type == typ && d.physical[id] == "" {
				bad("%s %s was not deployed", typ, id)
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}

	// The table (the reference stack's a TableV2, the example's a plain
	// Table): moto keeps its key and deletion protection, not its TTL.
	var tableRes resource
	tableType := "AWS::DynamoDB::Table"
	if _, _, err := tpl.one("AWS::DynamoDB::GlobalTable", nil); err == nil {
		tableType = "AWS::DynamoDB::GlobalTable"
	}
	if d.tableID, tableRes, err = tpl.one(tableType, nil); err != nil {
		return nil, nil, err
	}
	d.table = d.physical[d.tableID]
	tableOut, err := c.dynamo.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(d.table)})
	if err != nil {
		return nil, nil, fmt.Errorf("deploylocal: describe the table: %w", err)
	}
	t := tableOut.Table
	if len(t.KeySchema) != 1 || aws.ToString(t.KeySchema[0].AttributeName) != "id" || t.KeySchema[0].KeyType != "HASH" {
		bad("table key schema %s, want id as the partition key alone", jsonText(t.KeySchema))
	}
	if !aws.ToBool(t.DeletionProtectionEnabled) {
		bad("table %s has no deletion protection", d.table)
	}
	if ttl := jsonText(tableRes.Properties["TimeToLiveSpecification"]); ttl != `{"AttributeName":"expiration","Enabled":true}` {
		bad("template: table TTL %s, want on expiration", ttl)
	}

	// The queues: visibility and redrive as the template says.
	var queueRes resource
	hasRedrive := func(r resource) bool { return r.Properties["RedrivePolicy"] != nil }
	if d.queueID, queueRes, err = tpl.one("AWS::SQS::Queue", hasRedrive); err != nil {
		return nil, nil, err
	}
	if d.dlqID, _, err = tpl.one("AWS::SQS::Queue", func(r resource) bool { return !hasRedrive(r) }); err != nil {
		return nil, nil, err
	}
	if d.queueURL, err = localQueueURL(ctx, c.sqs, d.physical[d.queueID]); err != nil {
		return nil, nil, err
	}
	if d.dlqURL, err = localQueueURL(ctx, c.sqs, d.physical[d.dlqID]); err != nil {
		return nil, nil, err
	}
	attrs := func(u string) map[string]string {
		out, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		if err != nil {
			bad("queue attributes of %s: %v", u, err)
			return nil
		}
		return out.Attributes
	}
	qa, da := attrs(d.queueURL), attrs(d.dlqURL)
	d.queueARN = qa["QueueArn"]
	if got, want := qa["VisibilityTimeout"], fmt.Sprint(queueRes.Properties["VisibilityTimeout"]); got != want {
		bad("queue visibility timeout %s, want the template's %s", got, want)
	}
	var redrive struct {
		Target string          `json:"deadLetterTargetArn"`
		Max    json.RawMessage `json:"maxReceiveCount"`
	}
	_ = json.Unmarshal([]byte(qa["RedrivePolicy"]), &redrive)
	wantMax := fmt.Sprint(queueRes.Properties["RedrivePolicy"].(map[string]any)["maxReceiveCount"])
	if redrive.Target != da["QueueArn"] || strings.Trim(string(redrive.Max), `"`) != wantMax {
		bad("queue redrive policy %s, want the dead-letter queue %s after %s receives", qa["RedrivePolicy"], da["QueueArn"], wantMax)
	}

	// The function, whose environment the worker will run with.
	fnID, fnRes, err := tpl.one("AWS::Lambda::Function", nil)
	if err != nil {
		return nil, nil, err
	}
	d.function = d.physical[fnID]
	fn, err := c.lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(d.function)})
	if err != nil {
		return nil, nil, fmt.Errorf("deploylocal: the function's configuration: %w", err)
	}
	if string(fn.Runtime) != "provided.al2023" || aws.ToString(fn.Handler) != "bootstrap" {
		bad("function runtime %s handler %s, want provided.al2023 and bootstrap", fn.Runtime, aws.ToString(fn.Handler))
	}
	d.timeout = time.Duration(aws.ToInt32(fn.Timeout)) * time.Second
	d.memoryMB = int(aws.ToInt32(fn.MemorySize))
	if fmt.Sprint(fnRes.Properties["Timeout"]) != strconv.Itoa(int(aws.ToInt32(fn.Timeout))) {
		bad("function timeout %d s, want the template's %v", aws.ToInt32(fn.Timeout), fnRes.Properties["Timeout"])
	}
	if fn.Environment != nil {
		d.env = fn.Environment.Variables
	}
	wantEnv, _ := fnRes.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	if len(d.env) != len(wantEnv) {
		bad("function environment %s, want the template's %s", jsonText(d.env), jsonText(wantEnv))
	}
	for k, v := range wantEnv {
		if got, want := d.env[k], d.resolve(v); got != want {
			bad("function environment %s=%q, want the template's %q", k, got, want)
		}
	}
	if archs, _ := fnRes.Properties["Architectures"].([]any); len(archs) == 1 {
		d.arch, _ = archs[0].(string)
	}
	code, _ := fnRes.Properties["Code"].(map[string]any)
	d.assetBucket, d.assetKey = d.resolve(code["S3Bucket"]), d.resolve(code["S3Key"])
	d.role = d.physical[refOf(fnRes.Properties["Role"])]
	if !strings.HasSuffix(aws.ToString(fn.Role), ":role/"+d.role) {
		bad("function role %s, want %s", aws.ToString(fn.Role), d.role)
	}

	// The event source mapping.
	esmID, esmRes, err := tpl.one("AWS::Lambda::EventSourceMapping", nil)
	if err != nil {
		return nil, nil, err
	}
	d.mapping = d.physical[esmID]
	esm, err := c.lambda.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(d.mapping)})
	if err != nil {
		return nil, nil, fmt.Errorf("deploylocal: the event source mapping: %w", err)
	}
	if aws.ToString(esm.EventSourceArn) != d.queueARN || !strings.HasSuffix(aws.ToString(esm.FunctionArn), ":function:"+d.function) {
		bad("event source mapping from %s to %s, want %s to %s", aws.ToString(esm.EventSourceArn), aws.ToString(esm.FunctionArn), d.queueARN, d.function)
	}
	if !slices.ContainsFunc(esm.FunctionResponseTypes, func(t lambdatypes.FunctionResponseType) bool { return string(t) == "ReportBatchItemFailures" }) {
		bad("event source mapping response types %v, want ReportBatchItemFailures", esm.FunctionResponseTypes)
	}
	d.batchSize = int(aws.ToInt32(esm.BatchSize))
	if fmt.Sprint(esmRes.Properties["BatchSize"]) != strconv.Itoa(d.batchSize) {
		bad("event source mapping batch size %d, want the template's %v", d.batchSize, esmRes.Properties["BatchSize"])
	}
	if w, ok := esmRes.Properties["MaximumBatchingWindowInSeconds"].(float64); ok {
		d.window = time.Duration(w) * time.Second
	}

	problems = append(problems, d.checkGrants(ctx, c, tpl, spec)...)
	problems = append(problems, checkTemplateOnly(tpl, d.dlqID, spec)...)
	return d, problems, nil
}

// checkGrants compares the role's inline policies, as moto keeps them,
// with what the worker needs: its writes on the table, reading its event
// source mappings, polling (and with
// back-off, ChangeMessageVisibility) on the queue, its log group (when the
// stack makes one: the example's function logs as the team's role lets
// it), and with the result bucket, put and get on the objects under its
// prefix; and what spec says the team's role had before idemq.
func (d *deployed) checkGrants(ctx context.Context, c clients, tpl *template, spec stackSpec) []string {
	tableARN := "arn:aws:dynamodb:" + Region + ":" + Account + ":table/" + d.table
	want := []string{
		"dynamodb:DeleteItem " + tableARN, "dynamodb:PutItem " + tableARN, "dynamodb:UpdateItem " + tableARN,
		"sqs:DeleteMessage " + d.queueARN, "sqs:GetQueueAttributes " + d.queueARN, "sqs:ReceiveMessage " + d.queueARN,
		"lambda:ListEventSourceMappings *", // the start-up read of the function's mappings
	}
	if logID, _, err := tpl.one("AWS::Logs::LogGroup", nil); err == nil {
		logARN := "arn:aws:logs:" + Region + ":" + Account + ":log-group:" + d.physical[logID]
		want = append(want, "logs:CreateLogStream "+logARN, "logs:PutLogEvents "+logARN)
	}
	if d.env["IDEMQ_BACKOFF"] == "true" {
		want = append(want, "sqs:ChangeMessageVisibility "+d.queueARN)
	}
	if b := d.env["IDEMQ_BLOB_BUCKET"]; b != "" {
		objects := "arn:aws:s3:::" + b + "/" + d.env["IDEMQ_BLOB_PREFIX"] + "*"
		want = append(want, "s3:GetObject "+objects, "s3:PutObject "+objects)
	}
	for _, a := range spec.ownQueueGrants {
		want = append(want, a+" "+d.queueARN)
	}
	var got []string
	names, err := c.iam.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(d.role)})
	if err != nil {
		return []string{fmt.Sprintf("the role's policies: %v", err)}
	}
	for _, name := range names.PolicyNames {
		p, err := c.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(d.role), PolicyName: aws.String(name)})
		if err != nil {
			return []string{fmt.Sprintf("the role's policy %s: %v", name, err)}
		}
		doc, _ := url.QueryUnescape(aws.ToString(p.PolicyDocument))
		var pd struct {
			Statement []struct {
				Effect   string
				Action   any
				Resource any
			}
		}
		if err := json.Unmarshal([]byte(doc), &pd); err != nil {
			return []string{fmt.Sprintf("the role's policy %s: %v", name, err)}
		}
		for _, s := range pd.Statement {
			for _, a := range strings.Fields(words(s.Action)) {
				for _, r := range strings.Fields(words(s.Resource)) {
					got = append(got, a+" "+r)
				}
			}
		}
	}
	// The team's grants and idemq's may name one action twice.
	slices.Sort(got)
	got = slices.Compact(got)
	slices.Sort(want)
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		return []string{fmt.Sprintf("the role allows\n\t%s\nwant exactly\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))}
	}
	return nil
}

// checkTemplateOnly checks in the template what moto does not keep: the
// alarms, the dead-letter queue's retention on deletion and the outputs.
func checkTemplateOnly(tpl *template, dlqID string, spec stackSpec) []string {
	var problems []string
	alarms := map[string]int{}
	for _, r := range tpl.Resources {
		if r.Type == "AWS::CloudWatch::Alarm" {
			alarms[fmt.Sprint(r.Properties["MetricName"])]++
		}
	}
	for m, n := range map[string]int{
		"ApproximateNumberOfMessagesVisible": 1,
		"ApproximateAgeOfOldestMessage":      2, // the queue's, and the dead-letter queue's before a dead letter expires
		"Failed":                             1, // the handler's EMF count
		"Duration":                           1,
		"Errors":                             1,
		"Throttles":                          1,
	} {
		if alarms[m] != n {
			problems = append(problems, fmt.Sprintf("template: %d alarms on %s, want %d", alarms[m], m, n))
		}
	}
	if p := tpl.Resources[dlqID].DeletionPolicy; spec.retainedDLQ && p != "Retain" {
		problems = append(problems, fmt.Sprintf("template: the dead-letter queue's DeletionPolicy is %q, want Retain", p))
	}
	for _, o := range spec.outputs {
		if tpl.Outputs[o] == nil {
			problems = append(problems, "template: no output "+o)
		}
	}
	return problems
}

// resolve is a template value as deployed: a string, a Ref to a resource,
// or an Fn::Sub of the account and region.
func (d *deployed) resolve(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if id := refOf(v); id != "" {
			return d.physical[id]
		}
		if s, ok := v["Fn::Sub"].(string); ok {
			return strings.NewReplacer("${AWS::AccountId}", Account, "${AWS::Region}", Region, "${AWS::Partition}", "aws").Replace(s)
		}
	}
	return jsonText(v)
}

// refOf is the logical id a {"Ref": id} or {"Fn::GetAtt": [id, …]} names.
func refOf(v any) string {
	m, _ := v.(map[string]any)
	if id, ok := m["Ref"].(string); ok {
		return id
	}
	if att, ok := m["Fn::GetAtt"].([]any); ok && len(att) > 0 {
		id, _ := att[0].(string)
		return id
	}
	return ""
}

// localQueueURL is moto's URL for the queue whose physical id (an AWS-style
// URL) is id.
func localQueueURL(ctx context.Context, c *sqs.Client, id string) (string, error) {
	out, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(id[strings.LastIndex(id, "/")+1:])})
	if err != nil {
		return "", fmt.Errorf("deploylocal: the queue %s: %w", id, err)
	}
	return aws.ToString(out.QueueUrl), nil
}

// words is a policy's Action or Resource, one string or a list, as
// space-separated words.
func words(v any) string {
	if l, ok := v.([]any); ok {
		var s []string
		for _, x := range l {
			s = append(s, fmt.Sprint(x))
		}
		return strings.Join(s, " ")
	}
	return fmt.Sprint(v)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
