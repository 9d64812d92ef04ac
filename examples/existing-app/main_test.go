package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
)

// TestMain stops the jsii runtime once, after all tests.
func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}

type obj = map[string]any
type arr = []any

// template synthesizes the team's stack with props (Code set) and returns
// its template as JSON, and as an assertions.Template.
func template(t *testing.T, props OrdersStackProps) (obj, assertions.Template) {
	t.Helper()
	tpl := assertions.Template_FromStack(ordersStack(t, props), nil)
	return *tpl.ToJSON(), tpl
}

// ordersStack is the team's stack with props (Code set), in an app of its
// own.
func ordersStack(t *testing.T, props OrdersStackProps) awscdk.Stack {
	t.Helper()
	props.Code = idemqcdk.GoCode(".", "./function") // as the app builds it (go's build cache makes it quick after the first)
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	return NewOrdersStack(app, jsii.String("Orders"), &props)
}

// notes are the synth errors (errs) or warnings of stack, each as its
// path and message, as `cdk synth` prints them.
func notes(stack awscdk.Stack, errs bool) []string {
	a := assertions.Annotations_FromStack(stack)
	find := a.FindWarning
	if errs {
		find = a.FindError
	}
	var out []string
	for _, m := range *find(jsii.String("*"), assertions.Match_AnyValue()) {
		//lint:ignore SA1019 the pinned assertions package returns no other type
		out = append(out, fmt.Sprintf("%s %v", *m.Id, m.Entry.Data))
	}
	return out
}

// only is the logical id and resource of the one resource of type typ in
// doc for which pick is true.
func only(t *testing.T, doc obj, typ string, pick func(obj) bool) (string, obj) {
	t.Helper()
	var id string
	var res obj
	for k, r := range doc["Resources"].(obj) {
		r := r.(obj)
		if r["Type"] == typ && (pick == nil || pick(r)) {
			if id != "" {
				t.Fatalf("more than one %s", typ)
			}
			id, res = k, r
		}
	}
	if id == "" {
		t.Fatalf("no %s", typ)
	}
	return id, res
}

func props(r obj) obj { p, _ := r["Properties"].(obj); return p }

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestTemplate checks what idemq adds to the team's app: the record table
// (an AWS::DynamoDB::Table) with TTL, its expiry sized from that queue;
// only the actions idemq's own stack grants, beside the team's own; the
// team's event source mapping with ReportBatchItemFailures and its own
// batch size; the seven alarms, paging the team's topic; the environment
// the function's start-up check reads; and nothing it was not asked for:
// no bucket, no managed policy, no concurrency cap, no synth warning (so
// `cdk synth --strict` passes).
func TestTemplate(t *testing.T) {
	stack := ordersStack(t, OrdersStackProps{})
	tpl := assertions.Template_FromStack(stack, nil)
	doc := *tpl.ToJSON()
	hasRedrive := func(r obj) bool { return props(r)["RedrivePolicy"] != nil }
	queueID, q := only(t, doc, "AWS::SQS::Queue", hasRedrive)
	_, dlq := only(t, doc, "AWS::SQS::Queue", func(r obj) bool { return !hasRedrive(r) })
	fnID, fn := only(t, doc, "AWS::Lambda::Function", nil)
	tableID, table := only(t, doc, "AWS::DynamoDB::Table", nil)
	topicID, _ := only(t, doc, "AWS::SNS::Topic", nil)

	// The queue's settings, as the template deploys them: SQS's default
	// retention (none set), the dead-letter queue's 14 days.
	seconds := func(v any, def time.Duration) time.Duration {
		if f, ok := v.(float64); ok {
			return time.Duration(f) * time.Second
		}
		return def
	}
	settings := queue.Settings{
		Retention:           seconds(props(q)["MessageRetentionPeriod"], 4*24*time.Hour),
		VisibilityTimeout:   seconds(props(q)["VisibilityTimeout"], 30*time.Second),
		MaxReceives:         int(props(q)["RedrivePolicy"].(obj)["maxReceiveCount"].(float64)),
		DeadLetterRetention: seconds(props(dlq)["MessageRetentionPeriod"], 4*24*time.Hour),
	}
	timeout := seconds(props(fn)["Timeout"], 3*time.Second)
	life, err := queue.RecordLifetime(settings, timeout)
	if err != nil {
		t.Fatal(err)
	}
	if life != 540*time.Hour+38*time.Minute {
		t.Errorf("the queue's record lifetime is %s, want 540h38m0s (96h + 5 × 6m, redriven from a 14-day dead-letter queue, + a quarter)", life)
	}
	if ttl := jsonText(props(table)["TimeToLiveSpecification"]); ttl != `{"AttributeName":"expiration","Enabled":true}` {
		t.Errorf("table TTL %s, want on expiration", ttl)
	}
	env, _ := props(fn)["Environment"].(obj)["Variables"].(obj)
	queueJSON, _ := json.Marshal(settings)
	for k, want := range map[string]any{
		"IDEMQ_TABLE":         obj{"Ref": tableID},
		"IDEMQ_RECORD_EXPIRY": life.String(),
		"IDEMQ_CLOCK_SKEW":    idem.DefaultClockSkew.String(),
		"IDEMQ_QUEUE":         string(queueJSON), // what the function's start-up check reads
		"IDEMQ_NAMESPACE":     "orders",
		"IDEMQ_KEY_FIELD":     "idempotency_key",
		"IDEMQ_BACKOFF":       "true",
		"IDEMQ_EMF_NAMESPACE": "idemq",
	} {
		if jsonText(env[k]) != jsonText(want) {
			t.Errorf("the function's %s is %s, want %s", k, jsonText(env[k]), jsonText(want))
		}
	}
	if len(env) != 8 {
		t.Errorf("the function's environment has %d variables, want idemq's 8: %s", len(env), jsonText(env))
	}

	// Only the actions idemq's own stack grants, beside the team's: the
	// role CDK made for the team's function keeps its managed policy (the
	// team's choice), and its one inline policy holds what the team's
	// SqsEventSource granted and idemq's grants, nothing else.
	var got []string
	for _, r := range doc["Resources"].(obj) {
		if r := r.(obj); r["Type"] == "AWS::IAM::Policy" {
			for _, s := range props(r)["PolicyDocument"].(obj)["Statement"].(arr) {
				s := s.(obj)
				actions, ok := s["Action"].(arr)
				if !ok {
					actions = arr{s["Action"]}
				}
				for _, a := range actions {
					got = append(got, fmt.Sprintf("%s %v on %s", s["Effect"], a, jsonText(s["Resource"])))
				}
			}
		}
	}
	arn := func(id string) string { return jsonText(obj{"Fn::GetAtt": arr{id, "Arn"}}) }
	want := []string{
		"Allow dynamodb:PutItem on " + arn(tableID), "Allow dynamodb:UpdateItem on " + arn(tableID), "Allow dynamodb:DeleteItem on " + arn(tableID),
		"Allow sqs:ReceiveMessage on " + arn(queueID), "Allow sqs:DeleteMessage on " + arn(queueID), "Allow sqs:GetQueueAttributes on " + arn(queueID),
		"Allow sqs:ChangeMessageVisibility on " + arn(queueID),
		"Allow lambda:ListEventSourceMappings on " + jsonText("*"), // the worker's start-up read of its mappings
	}
	for _, a := range teamsConsumeGrant {
		want = append(want, "Allow "+a+" on "+arn(queueID))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the function's grants:\n\t%s\nwant exactly idemq's:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}

	_, esm := only(t, doc, "AWS::Lambda::EventSourceMapping", nil)
	if got, want := jsonText(props(esm)), jsonText(obj{
		"BatchSize":             10,
		"EventSourceArn":        obj{"Fn::GetAtt": arr{queueID, "Arn"}},
		"FunctionName":          obj{"Ref": fnID},
		"FunctionResponseTypes": arr{"ReportBatchItemFailures"},
	}); got != want {
		t.Errorf("event source mapping %s, want %s", got, want)
	}
	alarms := map[string]int{}
	for _, r := range doc["Resources"].(obj) {
		if r := r.(obj); r["Type"] == "AWS::CloudWatch::Alarm" {
			alarms[fmt.Sprint(props(r)["MetricName"])]++
			if got := jsonText(props(r)["AlarmActions"]); got != jsonText(arr{obj{"Ref": topicID}}) {
				t.Errorf("alarm %v's actions %s, want the team's pager topic", props(r)["MetricName"], got)
			}
		}
	}
	if got := jsonText(alarms); got != `{"ApproximateAgeOfOldestMessage":2,"ApproximateNumberOfMessagesVisible":1,"Duration":1,"Errors":1,"Failed":1,"Throttles":1}` {
		t.Errorf("alarms by metric: %s, want the seven", got)
	}
	tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Dashboard"), jsii.Number(1))
	tpl.ResourceCountIs(jsii.String("AWS::IAM::ManagedPolicy"), jsii.Number(0))
	tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(0))
	for _, errs := range []bool{true, false} {
		for _, n := range notes(stack, errs) {
			t.Errorf("synth note (cdk synth --strict fails on it): %s", n)
		}
	}
}

// teamsConsumeGrant are the actions CDK's SqsEventSource grants the
// function on its queue (grantConsumeMessages), which the team's role has
// had since before idemq.
var teamsConsumeGrant = []string{"sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueUrl", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}

// TestMigrationUpdatesTheMappingInPlace synthesizes the app as it was
// before idemq and with idemq: one event source mapping in each, from the
// queue to the function, with the same logical id, so the deploy that
// attaches idemq updates it in place (a second mapping, or a replaced one,
// would fail the deploy); with idemq it has ReportBatchItemFailures.
func TestMigrationUpdatesTheMappingInPlace(t *testing.T) {
	before, _ := template(t, OrdersStackProps{WithoutIdemq: true})
	after, _ := template(t, OrdersStackProps{})
	beforeID, b := only(t, before, "AWS::Lambda::EventSourceMapping", nil)
	afterID, a := only(t, after, "AWS::Lambda::EventSourceMapping", nil)
	if beforeID != afterID {
		t.Errorf("the mapping is %s before idemq and %s with it: CloudFormation would replace it", beforeID, afterID)
	}
	if props(b)["FunctionResponseTypes"] != nil || jsonText(props(a)["FunctionResponseTypes"]) != `["ReportBatchItemFailures"]` {
		t.Errorf("response types before %v, after %v; want none, then ReportBatchItemFailures", props(b)["FunctionResponseTypes"], props(a)["FunctionResponseTypes"])
	}
	// Every resource the team had keeps its logical id and type.
	for id, r := range before["Resources"].(obj) {
		if got, ok := after["Resources"].(obj)[id].(obj); !ok || got["Type"] != r.(obj)["Type"] {
			t.Errorf("the team's %v %s is not in the stack with idemq as it was", r.(obj)["Type"], id)
		}
	}
}

// TestUnsafeQueueFailsSynth checks that the team's queue fails the synth,
// with a synth error on the Attachment (no Go panic) naming the setting,
// when its visibility timeout is shorter than the function's timeout
// (issue 35's team had 30 s under 45 s), or its max receives leave no
// retry.
func TestUnsafeQueueFailsSynth(t *testing.T) {
	for _, c := range []struct {
		name  string
		props OrdersStackProps
		says  string
	}{
		{"visibility 30s under the 1-minute function", OrdersStackProps{VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(30))},
			"the queue's VisibilityTimeout 30s is shorter than the function's Timeout 1m0s"},
		{"max receives 1", OrdersStackProps{MaxReceiveCount: jsii.Number(1)},
			"the queue's DeadLetterQueue.MaxReceiveCount 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := notes(ordersStack(t, c.props), true)
			if len(errs) != 1 || !strings.HasPrefix(errs[0], "/Orders/Idemq ") || !strings.Contains(errs[0], c.says) {
				t.Fatalf("synth errors %v; want one on /Orders/Idemq saying %q", errs, c.says)
			}
			t.Log(errs[0])
		})
	}
}

// TestDocsShowTheAppsCode checks that docs/deploy.md's "Add idemq to an
// existing app" shows the lines of main.go between docs:begin and
// docs:end, as they are.
func TestDocsShowTheAppsCode(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(src), "// docs:begin")
	region, _, ok2 := strings.Cut(rest, "\t// docs:end")
	if !ok1 || !ok2 {
		t.Fatal("main.go has no docs:begin … docs:end region")
	}
	_, region, _ = strings.Cut(region, "\n")
	var want []string
	for _, l := range strings.Split(strings.TrimRight(region, "\n"), "\n") {
		want = append(want, strings.TrimPrefix(l, "\t"))
	}
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Add idemq to an existing app\n")
	if !ok {
		t.Fatal(`docs/deploy.md has no "## Add idemq to an existing app"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	if !strings.Contains(section, strings.Join(want, "\n")) {
		t.Errorf("docs/deploy.md's \"Add idemq to an existing app\" does not show main.go's lines as they are:\n%s", strings.Join(want, "\n"))
	}
}
