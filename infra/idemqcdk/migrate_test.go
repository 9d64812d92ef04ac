package idemqcdk_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// ownSource adds the team's own event source to app, as CDK's
// documentation shows it.
func ownSource(app usersApp, props *awslambdaeventsources.SqsEventSourceProps) {
	app.function.AddEventSource(awslambdaeventsources.NewSqsEventSource(app.queue, props))
}

// mappings are the logical ids and properties of stack's event source
// mappings.
func mappings(t *testing.T, stack awscdk.Stack) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	for id, r := range *assertions.Template_FromStack(stack, nil).FindResources(jsii.String("AWS::Lambda::EventSourceMapping"), nil) {
		var res struct{ Properties obj }
		if err := json.Unmarshal([]byte(jsonString(r)), &res); err != nil {
			t.Fatal(err)
		}
		out[id] = res.Properties
	}
	return out
}

// onlyMapping is the logical id and properties of stack's one mapping.
func onlyMapping(t *testing.T, stack awscdk.Stack) (string, obj) {
	t.Helper()
	ms := mappings(t, stack)
	if len(ms) != 1 {
		t.Fatalf("%d event source mappings, want 1: %v", len(ms), ms)
	}
	for id, p := range ms {
		return id, p
	}
	return "", nil
}

// attach attaches idemq to app with props' Function, Queue and Request
// filled in.
func attach(app usersApp, props idemqcdk.AttachmentProps) *idemqcdk.Attachment {
	props.Function, props.Queue = app.function, app.queue
	if props.Request == nil {
		props.Request = &request.Identity{Namespace: "orders"}
	}
	return idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &props)
}

// TestAttachmentTakesOverTheAppsEventSource attaches idemq to a function
// that has its own SqsEventSource from the queue: the stack keeps one
// mapping, with the logical id it had (CloudFormation updates it in
// place), ReportBatchItemFailures turned on and the team's batching
// settings kept, the batching window sizing the records; settings given
// to the Attachment replace the team's.
func TestAttachmentTakesOverTheAppsEventSource(t *testing.T) {
	own := &awslambdaeventsources.SqsEventSourceProps{
		BatchSize: jsii.Number(5), MaxBatchingWindow: awscdk.Duration_Seconds(jsii.Number(2)), MaxConcurrency: jsii.Number(7),
	}
	before := newUsersApp(t, teamQueue)
	ownSource(before, own)
	id, _ := onlyMapping(t, before.stack)

	after := newUsersApp(t, teamQueue)
	ownSource(after, own)
	a := attach(after, idemqcdk.AttachmentProps{})
	gotID, props := onlyMapping(t, after.stack)
	if gotID != id || !strings.HasPrefix(*a.EventSource.Node().Path(), "Team/Handler/SqsEventSource:TeamOrders") {
		t.Errorf("the mapping is %s (%s), want the team's %s, taken over", gotID, *a.EventSource.Node().Path(), id)
	}
	for k, want := range map[string]any{"BatchSize": 5.0, "MaximumBatchingWindowInSeconds": 2.0, "ScalingConfig": obj{"MaximumConcurrency": 7.0},
		"FunctionResponseTypes": arr{"ReportBatchItemFailures"}} {
		if jsonString(props[k]) != jsonString(want) {
			t.Errorf("the mapping's %s is %s, want %s", k, jsonString(props[k]), jsonString(want))
		}
	}
	if a.Settings.BatchingWindow != 2*time.Second {
		t.Errorf("the records are sized for a window of %s, want the team's 2s", a.Settings.BatchingWindow)
	}
	noNotes(t, after.stack)

	// Given, the Attachment's settings replace the team's: no cap.
	given := newUsersApp(t, teamQueue)
	ownSource(given, own)
	attach(given, idemqcdk.AttachmentProps{BatchSize: jsii.Number(10), MaxConcurrency: jsii.Number(idemqcdk.NoMaxConcurrency)})
	if _, props := onlyMapping(t, given.stack); jsonString(props["BatchSize"]) != "10" || props["ScalingConfig"] != nil || props["MaximumBatchingWindowInSeconds"] != 2.0 {
		t.Errorf("given batch size 10 and no cap: %s", jsonString(props))
	}
}

// TestSwappedEventSourceKeepsItsLogicalID swaps a team's
// AddEventSource(NewSqsEventSource(...)) line for an Attachment given the
// same settings: the Attachment's mapping has the logical id the team's
// had, so the deploy updates it in place rather than creating a second
// mapping before deleting the first (which Lambda refuses).
func TestSwappedEventSourceKeepsItsLogicalID(t *testing.T) {
	before := newUsersApp(t, teamQueue)
	ownSource(before, &awslambdaeventsources.SqsEventSourceProps{BatchSize: jsii.Number(10)})
	id, _ := onlyMapping(t, before.stack)

	after := newUsersApp(t, teamQueue)
	attach(after, idemqcdk.AttachmentProps{BatchSize: jsii.Number(10)})
	gotID, props := onlyMapping(t, after.stack)
	if gotID != id {
		t.Errorf("the Attachment's mapping is %s, want the team's logical id %s", gotID, id)
	}
	if jsonString(props["BatchSize"]) != "10" || jsonString(props["FunctionResponseTypes"]) != `["ReportBatchItemFailures"]` {
		t.Errorf("the mapping %s", jsonString(props))
	}
}

// TestTwoMappingsFromOneQueueFailSynth adds the team's own event source
// after the Attachment made its mapping: synth fails on each of the two,
// naming both.
func TestTwoMappingsFromOneQueueFailSynth(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	a := attach(app, idemqcdk.AttachmentProps{})
	app.function.AddEventSourceMapping(jsii.String("Orders"), &awslambda.EventSourceMappingOptions{EventSourceArn: app.queue.QueueArn(), ReportBatchItemFailures: jsii.Bool(true)})
	errs := refusals(t, app.stack)
	if len(errs) != 2 {
		t.Fatalf("synth errors %v, want one on each mapping", errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.msg, "2 event source mappings from the queue Team/Orders to the function Team/Handler: ") ||
			!strings.Contains(e.msg, *a.EventSource.Node().Path()) || !strings.Contains(e.msg, "Team/Handler/Orders") {
			t.Errorf("%s: want both mappings named", e)
		}
	}
	t.Log(errs[0])
}

// TestMappingWithoutReportBatchItemFailuresFailsSynth takes
// ReportBatchItemFailures off the Attachment's mapping, and feeds the
// function from a second queue without it: synth fails on each mapping,
// naming it, its queue and the function.
func TestMappingWithoutReportBatchItemFailuresFailsSynth(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	a := attach(app, idemqcdk.AttachmentProps{})
	a.EventSource.Node().DefaultChild().(awslambda.CfnEventSourceMapping).SetFunctionResponseTypes(nil)
	other := awssqs.NewQueue(app.stack, jsii.String("Returns"), nil)
	app.function.AddEventSource(awslambdaeventsources.NewSqsEventSource(other, nil))
	errs := refusals(t, app.stack)
	if len(errs) != 2 {
		t.Fatalf("synth errors %v, want one on each mapping", errs)
	}
	for i, queue := range []string{"Team/Orders", "Team/Returns"} {
		e := errs[i]
		if !strings.HasPrefix(e.path, "/Team/Handler/SqsEventSource:"+strings.ReplaceAll(queue, "/", "")) ||
			!strings.Contains(e.msg, "feeds idemq's function Team/Handler from the queue "+queue+" without ReportBatchItemFailures") {
			t.Errorf("%s: want the mapping from %s refused, naming the function and the queue", e, queue)
		}
	}
	t.Log(errs[0])
}

// TestOnlyWhatWasAskedFor gives the Attachment the bucket, alarm actions
// (an SNS topic) and a cap: each is in the template, and the alarms each
// notify the topic.
func TestOnlyWhatWasAskedFor(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	topic := awssns.NewTopic(app.stack, jsii.String("Pager"), nil)
	a := attach(app, idemqcdk.AttachmentProps{
		ResultBucket: jsii.Bool(true), MaxConcurrency: jsii.Number(5),
		AlarmActions: &[]awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(topic)},
	})
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "asked for", func() {
		tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{"ScalingConfig": obj{"MaximumConcurrency": 5}})
		tpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"),
			obj{"AlarmActions": arr{ref(*tpl.GetResourceId(jsii.String("AWS::SNS::Topic"), nil))}}, jsii.Number(7))
	})
	if a.Bucket == nil {
		t.Error("no Bucket")
	}
	noNotes(t, app.stack)
}

// TestKeepV020Attachment keeps what v0.2.0's Attachment deployed: the
// table a TableV2 (AWS::DynamoDB::GlobalTable), the mapping at
// Idemq/QueueSource, the redrive managed policy.
func TestKeepV020Attachment(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	a := attach(app, idemqcdk.AttachmentProps{KeepV020: jsii.Bool(true)})
	if _, ok := a.Table.(awsdynamodb.TableV2); !ok || *a.EventSource.Node().Path() != "Team/Idemq/QueueSource" || a.RedrivePolicy == nil {
		t.Errorf("table %T, mapping %s, redrive policy %v; want v0.2.0's", a.Table, *a.EventSource.Node().Path(), a.RedrivePolicy)
	}
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "v0.2.0's resources", func() {
		tpl.ResourceCountIs(jsii.String("AWS::DynamoDB::GlobalTable"), jsii.Number(1))
		tpl.ResourceCountIs(jsii.String("AWS::IAM::ManagedPolicy"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{"BatchSize": 10, "FunctionResponseTypes": arr{"ReportBatchItemFailures"}})
	})
	noNotes(t, app.stack)
}

// TestMRSCTable gives the Attachment replicas: a TableV2 with multi-Region
// strong consistency synthesizes, with three replicas or two and a
// witness; replicas that cannot be strongly consistent are refused, and
// an eventually consistent replica added to the table fails the synth.
func TestMRSCTable(t *testing.T) {
	in := func(region string) usersApp {
		q := teamQueue
		q.region = region
		return newUsersApp(t, q)
	}
	regions := func(r ...string) *[]*string { return jsii.Strings(r...) }

	app := in("us-east-1")
	attach(app, idemqcdk.AttachmentProps{Replicas: regions("us-east-2", "us-west-2")})
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "three replicas", func() {
		tpl.HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), obj{
			"MultiRegionConsistency":  "STRONG",
			"Replicas":                assertions.Match_ArrayWith(&arr{assertions.Match_ObjectLike(&obj{"Region": "us-east-2"}), assertions.Match_ObjectLike(&obj{"Region": "us-west-2"})}),
			"TimeToLiveSpecification": assertions.Match_Absent(),
		})
		// The function is told, so that its store refuses staged writes
		// before they are sent: such a table commits no transaction.
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": assertions.Match_ObjectLike(&obj{"IDEMQ_DYNAMODB_MULTI_REGION_STRONG": "true"})},
		})
	})
	noNotes(t, app.stack)

	witness := in("us-east-1")
	attach(witness, idemqcdk.AttachmentProps{Replicas: regions("us-east-2"), WitnessRegion: jsii.String("us-west-2")})
	check(t, "two replicas and a witness", func() {
		assertions.Template_FromStack(witness.stack, nil).HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), obj{
			"MultiRegionConsistency": "STRONG", "GlobalTableWitnesses": arr{obj{"Region": "us-west-2"}},
		})
	})

	for _, c := range []struct {
		name   string
		region string
		props  idemqcdk.AttachmentProps
		says   string
	}{
		{"one replica, no witness", "us-east-1", idemqcdk.AttachmentProps{Replicas: regions("us-east-2")},
			"AttachmentProps.Replicas names 1 region(s): a claim is one conditional write"},
		{"replicas of v0.2.0's table", "us-east-1", idemqcdk.AttachmentProps{Replicas: regions("us-east-2", "us-west-2"), KeepV020: jsii.Bool(true)},
			"only while it is empty"},
		{"a region-agnostic stack", "", idemqcdk.AttachmentProps{Replicas: regions("us-east-2", "us-west-2")},
			"whose region is known only at deployment"},
		{"another region set", "us-east-1", idemqcdk.AttachmentProps{Replicas: regions("eu-west-1", "us-west-2")},
			"names eu-west-1, outside the US region set"},
		{"the stack's own region", "us-east-1", idemqcdk.AttachmentProps{Replicas: regions("us-east-1", "us-west-2")},
			"names the stack's own region us-east-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := in(c.region)
			if msg := refusal(t, attach(app, c.props).Construct); !strings.Contains(msg, c.says) {
				t.Errorf("%s\nwant it to say %q", msg, c.says)
			}
		})
	}

	t.Run("an eventually consistent replica added to the table", func(t *testing.T) {
		app := in("us-east-1")
		a := attach(app, idemqcdk.AttachmentProps{KeepV020: jsii.Bool(true)})
		a.Table.(awsdynamodb.TableV2).AddReplica(&awsdynamodb.ReplicaTableProps{Region: jsii.String("us-east-2")})
		errs := refusals(t, a.Table) // the checks run at synth
		if len(errs) != 1 {
			t.Fatalf("synth errors %v, want one on the table", errs)
		}
		msg := errs[0].msg
		if !strings.Contains(msg, "has replicas in us-east-2, us-east-1 with multi-Region eventual consistency") && !strings.Contains(msg, "with multi-Region eventual consistency") {
			t.Errorf("%s", msg)
		}
		t.Log(msg)
	})
}
