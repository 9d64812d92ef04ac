package idemqcdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// usersApp is a team's own stack: a queue with its dead-letter queue and a
// function, as they would have them before idemq.
type usersApp struct {
	stack    awscdk.Stack
	queue    awssqs.Queue
	dlq      awssqs.Queue
	function awslambda.Function
}

// queueOptions change the team's queue.
type usersQueue struct {
	visibility, timeout time.Duration
	maxReceives         float64
	dlqRetention        time.Duration // 0: SQS's default
	noDLQ               bool
	region              string // the stack's; "": region-agnostic
}

func newUsersApp(t *testing.T, q usersQueue) usersApp {
	t.Helper()
	var stackProps *awscdk.StackProps
	if q.region != "" {
		stackProps = &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String(q.region), Account: jsii.String("123456789012")}}
	}
	a := usersApp{stack: awscdk.NewStack(newApp(t, nil), jsii.String("Team"), stackProps)}
	dlqProps := &awssqs.QueueProps{}
	if q.dlqRetention != 0 {
		dlqProps.RetentionPeriod = awscdk.Duration_Seconds(jsii.Number(q.dlqRetention.Seconds()))
	}
	a.dlq = awssqs.NewQueue(a.stack, jsii.String("OrdersDLQ"), dlqProps)
	props := &awssqs.QueueProps{VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(q.visibility.Seconds()))}
	if !q.noDLQ {
		props.DeadLetterQueue = &awssqs.DeadLetterQueue{Queue: a.dlq, MaxReceiveCount: jsii.Number(q.maxReceives)}
	}
	a.queue = awssqs.NewQueue(a.stack, jsii.String("Orders"), props)
	a.function = awslambda.NewFunction(a.stack, jsii.String("Handler"), &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_PROVIDED_AL2023(),
		Handler: jsii.String("bootstrap"),
		Code:    awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil),
		Timeout: awscdk.Duration_Seconds(jsii.Number(q.timeout.Seconds())),
	})
	return a
}

// teamQueue is a queue that can be safe for a one-minute function.
var teamQueue = usersQueue{visibility: 6 * time.Minute, timeout: time.Minute, maxReceives: 5, dlqRetention: 14 * 24 * time.Hour}

// TestAttachment attaches idemq to a team's queue and function and checks
// the parts: the record expiry sized from that queue, the table (a plain
// AWS::DynamoDB::Table), exactly idemq's grants on the function's role,
// the environment, the event source with ReportBatchItemFailures and
// nothing else set, the seven alarms and the dashboard; and nothing the
// team did not ask for: no bucket, no managed policy, no concurrency cap.
func TestAttachment(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Queue: app.queue, Request: &request.Identity{Namespace: "orders"},
	})
	want := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 6 * time.Minute, MaxReceives: 5, DeadLetterRetention: 14 * 24 * time.Hour}
	if a.Settings != want {
		t.Errorf("Settings %+v, want the queue's %+v", a.Settings, want)
	}
	// 96h + 5 × 6m = 96h30m in the queue; a redrive from the 14-day
	// dead-letter queue: 336h + 96h30m = 432h30m; + a quarter, rounded up.
	if life := must(queue.RecordLifetime(want, time.Minute)); a.RecordExpiry != life || life != 540*time.Hour+38*time.Minute {
		t.Errorf("RecordExpiry %s, want %s (540h38m0s)", a.RecordExpiry, life)
	}
	tpl := assertions.Template_FromStack(app.stack, nil)
	id := func(typ string, props any) string { return *tpl.GetResourceId(jsii.String(typ), props) }
	var table, queueID string
	check(t, "resource ids", func() {
		table = id("AWS::DynamoDB::Table", nil)
		queueID = id("AWS::SQS::Queue", obj{"Properties": obj{"RedrivePolicy": assertions.Match_AnyValue()}})
	})
	check(t, "table", func() {
		tpl.ResourceCountIs(jsii.String("AWS::DynamoDB::GlobalTable"), jsii.Number(0))
		tpl.HasResource(jsii.String("AWS::DynamoDB::Table"), obj{
			"DeletionPolicy": "Retain",
			"Properties": obj{
				"KeySchema":                        arr{obj{"AttributeName": "id", "KeyType": "HASH"}},
				"BillingMode":                      "PAY_PER_REQUEST",
				"TimeToLiveSpecification":          obj{"AttributeName": "expiration", "Enabled": true},
				"PointInTimeRecoverySpecification": obj{"PointInTimeRecoveryEnabled": true},
				"DeletionProtectionEnabled":        true,
			},
		})
	})
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": assertions.Match_ObjectEquals(&obj{
				"IDEMQ_TABLE":         ref(table),
				"IDEMQ_RECORD_EXPIRY": "540h38m0s",
				"IDEMQ_CLOCK_SKEW":    "500ms",
				"IDEMQ_BACKOFF":       "true",
				"IDEMQ_KEY_FIELD":     "idempotency_key",
				"IDEMQ_NAMESPACE":     "orders",
				"IDEMQ_QUEUE":         `{"retention":"96h0m0s","visibilityTimeout":"6m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`,
				"IDEMQ_EMF_NAMESPACE": "idemq",
			})},
		})
	})
	check(t, "event source: the queue, ReportBatchItemFailures, Lambda's defaults for the rest", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), assertions.Match_ObjectEquals(&obj{
			"EventSourceArn":        getAtt(queueID, "Arn"),
			"FunctionName":          ref(id("AWS::Lambda::Function", nil)),
			"FunctionResponseTypes": arr{"ReportBatchItemFailures"},
		}))
	})
	check(t, "seven alarms without actions, a dashboard; no bucket, no managed policy", func() {
		tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(7))
		tpl.AllResourcesProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{"AlarmActions": assertions.Match_Absent()})
		tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Dashboard"), jsii.Number(1))
		tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(0))
		tpl.ResourceCountIs(jsii.String("AWS::IAM::ManagedPolicy"), jsii.Number(0))
	})
	if a.Bucket != nil || a.RedrivePolicy != nil {
		t.Errorf("Bucket %v, RedrivePolicy %v; want neither unasked", a.Bucket, a.RedrivePolicy)
	}
	if got := len(a.Alarms.All()); got != 7 {
		t.Errorf("%d alarms, want 7", got)
	}
	// The role CDK made for the function keeps its managed policy (the
	// team's choice); idemq adds exactly its own grants.
	grant := func(resource any, actions ...string) obj {
		a := arr{}
		for _, x := range actions {
			a = append(a, x)
		}
		return obj{"Effect": "Allow", "Action": a, "Resource": resource}
	}
	wantPairs := grantPairs([]obj{
		grant(getAtt(table, "Arn"), "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"),
		grant(getAtt(queueID, "Arn"), "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility"),
		grant("*", "lambda:ListEventSourceMappings"),
	})
	if got := grantPairs(roleStatements(tpl)); strings.Join(got, "\n") != strings.Join(wantPairs, "\n") {
		t.Errorf("the function's role is allowed\n\t%s\nwant exactly\n\t%s", strings.Join(got, "\n\t"), strings.Join(wantPairs, "\n\t"))
	}
	check(t, "the event source waits for the role's policy", func() {
		tpl.HasResource(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"DependsOn": assertions.Match_ArrayWith(&arr{assertions.Match_StringLikeRegexp(jsii.String("^HandlerServiceRoleDefaultPolicy"))}),
		})
	})
	noNotes(t, app.stack) // cdk synth --strict passes
}

// attachRefused attaches idemq with props (Function and Queue from app
// unless set) and returns the one synth error it adds.
func attachRefused(t *testing.T, app usersApp, props idemqcdk.AttachmentProps) string {
	t.Helper()
	if props.Function == nil {
		props.Function = app.function
	}
	if props.Queue == nil {
		props.Queue = app.queue
	}
	if props.Request == nil {
		props.Request = &request.Identity{Namespace: "orders"}
	}
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &props)
	if a.Table == nil || a.EventSource == nil || a.Alarms == nil || a.Dashboard == nil {
		t.Errorf("a refused Attachment lacks parts: %+v", a)
	}
	return refusal(t, a.Construct)
}

// TestAttachmentRefusesUnsafeQueues checks the refusals a Worker makes,
// for the team's own queue and function: each is a synth error (not a
// panic) that names the setting, where it comes from, and the value.
func TestAttachmentRefusesUnsafeQueues(t *testing.T) {
	for _, c := range []struct {
		name  string
		queue usersQueue
		says  []string
	}{
		{"visibility 30s under a 45s function (issue 35's team)", usersQueue{visibility: 30 * time.Second, timeout: 45 * time.Second, maxReceives: 5},
			[]string{"the queue's VisibilityTimeout 30s is shorter than the function's Timeout 45s"}},
		{"max receives 1", usersQueue{visibility: 6 * time.Minute, timeout: time.Minute, maxReceives: 1},
			[]string{"the queue's DeadLetterQueue.MaxReceiveCount 1"}},
		{"no dead-letter queue", usersQueue{visibility: 6 * time.Minute, timeout: time.Minute, noDLQ: true},
			[]string{"has no dead-letter queue"}},
		{"a retention that ends before a crashed worker's retry", usersQueue{visibility: 12 * time.Hour, timeout: time.Minute, maxReceives: 5},
			nil}, // accepted: 4 days is long enough
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newUsersApp(t, c.queue)
			if c.says == nil {
				a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{Function: app.function, Queue: app.queue, Request: &request.Identity{Namespace: "orders"}})
				if r := refusals(t, a.Construct); len(r) > 0 {
					t.Errorf("refused: %v", r)
				}
				return
			}
			msg := attachRefused(t, app, idemqcdk.AttachmentProps{})
			for _, s := range c.says {
				if !strings.Contains(msg, s) {
					t.Errorf("%s\ndoes not say %q", msg, s)
				}
			}
			t.Log(msg)
		})
	}
}

// TestAttachmentRefusesBadProps checks the props the Attachment cannot
// use, each refused naming the prop.
func TestAttachmentRefusesBadProps(t *testing.T) {
	imported := func(app usersApp) awssqs.IQueue {
		return awssqs.Queue_FromQueueArn(app.stack, jsii.String("Imported"), jsii.String("arn:aws:sqs:us-east-1:123456789012:orders"))
	}
	for _, c := range []struct {
		name  string
		props func(app usersApp) idemqcdk.AttachmentProps
		says  string
	}{
		{"no namespace", func(usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{Request: &request.Identity{Namespace: ""}}
		},
			"AttachmentProps.Request.Namespace is empty"},
		{"a batch over 10 without a window", func(usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{BatchSize: jsii.Number(20)}
		}, "AttachmentProps.MaxBatchingWindow"},
		{"a result bucket setting without the bucket", func(usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{ResultPrefix: jsii.String("mine/")}
		}, "AttachmentProps.ResultPrefix is set, but the bucket it would configure is left out (AttachmentProps.ResultBucket)"},
		{"a setting given that differs from the queue's", func(usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{QueueSettings: &idemqcdk.QueueSettings{VisibilityTimeout: awscdk.Duration_Minutes(jsii.Number(10))}}
		}, "AttachmentProps.QueueSettings.VisibilityTimeout is 600, but the queue's VisibilityTimeout is 360"},
		{"an imported queue without its settings", func(app usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{Queue: imported(app)}
		}, "set AttachmentProps.QueueSettings.RetentionPeriod"},
		{"an imported queue without its redrive policy", func(app usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{Queue: imported(app), QueueSettings: &idemqcdk.QueueSettings{
				RetentionPeriod: awscdk.Duration_Days(jsii.Number(4)), VisibilityTimeout: awscdk.Duration_Minutes(jsii.Number(6)),
			}}
		}, "AttachmentProps.QueueSettings.DeadLetterQueue"},
		{"an imported function", func(app usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{Function: awslambda.Function_FromFunctionArn(app.stack, jsii.String("ImportedFn"),
				jsii.String("arn:aws:lambda:us-east-1:123456789012:function:orders"))}
		}, "not a function defined in this app"},
		{"a batching window that is not whole seconds", func(usersApp) idemqcdk.AttachmentProps {
			return idemqcdk.AttachmentProps{MaxBatchingWindow: awscdk.Duration_Millis(jsii.Number(1500))}
		}, "AttachmentProps.MaxBatchingWindow 1 second 500 millis is not a whole number of seconds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newUsersApp(t, teamQueue)
			if msg := attachRefused(t, app, c.props(app)); !strings.Contains(msg, c.says) {
				t.Errorf("got %s; want a message saying %q", msg, c.says)
			}
		})
	}
}

// TestAttachmentToImportedQueue attaches idemq to a queue imported by ARN,
// whose settings the props give, and to an alias of the function: the
// record expiry is the same as for the queue defined in the app, and the
// event source invokes the alias.
func TestAttachmentToImportedQueue(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	q := awssqs.Queue_FromQueueArn(app.stack, jsii.String("Imported"), jsii.String("arn:aws:sqs:us-east-1:123456789012:orders"))
	dlq := awssqs.Queue_FromQueueArn(app.stack, jsii.String("ImportedDLQ"), jsii.String("arn:aws:sqs:us-east-1:123456789012:orders-dlq"))
	alias := awslambda.NewAlias(app.stack, jsii.String("Live"), &awslambda.AliasProps{AliasName: jsii.String("live"), Version: app.function.CurrentVersion()})
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: alias, Queue: q, Request: &request.Identity{Namespace: "orders"},
		QueueSettings: &idemqcdk.QueueSettings{
			RetentionPeriod:           awscdk.Duration_Days(jsii.Number(4)),
			VisibilityTimeout:         awscdk.Duration_Minutes(jsii.Number(6)),
			DeadLetterQueue:           &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(5)},
			DeadLetterRetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		},
	})
	if a.RecordExpiry != 540*time.Hour+38*time.Minute {
		t.Errorf("RecordExpiry %s, want 540h38m0s", a.RecordExpiry)
	}
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "the event source invokes the alias, from the imported queue", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"EventSourceArn":        "arn:aws:sqs:us-east-1:123456789012:orders",
			"FunctionResponseTypes": arr{"ReportBatchItemFailures"},
		})
		for _, esm := range *tpl.FindResources(jsii.String("AWS::Lambda::EventSourceMapping"), nil) {
			if name := jsonString((*esm)["Properties"].(obj)["FunctionName"]); !strings.Contains(name, `":live"`) {
				t.Errorf("the event source invokes %s, not the alias live", name)
			}
		}
	})
	check(t, "the function has the environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_RECORD_EXPIRY": "540h38m0s", "IDEMQ_NAMESPACE": "orders"}},
		})
	})
}

// TestCheckQueue checks the exported check: the refusals name queue.Settings
// fields (or Timeout), and the warnings come back.
func TestCheckQueue(t *testing.T) {
	ok := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 14 * 24 * time.Hour}
	if w, err := idemqcdk.CheckQueue(ok, 2*time.Minute, true); err != nil || len(w) != 0 {
		t.Errorf("the stack's defaults: %v, %v", w, err)
	}
	under := ok
	under.VisibilityTimeout = 3 * time.Minute // under 6 × 2 min, but a message cannot come back while its function runs
	if w, err := idemqcdk.CheckQueue(under, 2*time.Minute, true); err != nil || len(w) != 0 {
		t.Errorf("visibility under 6 × the timeout, over the timeout and the window: %v, %v; want no warning", w, err)
	}
	under.BatchingWindow = 90 * time.Second // 3 min < 90 s + 2 min
	if w, err := idemqcdk.CheckQueue(under, 2*time.Minute, true); err != nil || len(w) != 1 || !strings.Contains(w[0], "shows again while its function still runs it") {
		t.Errorf("visibility under the window and the timeout: %v, %v; want one warning", w, err)
	}
	for _, c := range []struct {
		name    string
		edit    func(*queue.Settings)
		timeout time.Duration
		backoff bool
		field   string
	}{
		{"visibility under the timeout", func(q *queue.Settings) { q.VisibilityTimeout = 30 * time.Second }, 45 * time.Second, true, "VisibilityTimeout"},
		{"one receive", func(q *queue.Settings) { q.MaxReceives = 1 }, time.Minute, true, "MaxReceives"},
		// The lease, a minute and 10 s, spends one receive: 2 leave no retry.
		{"no back-off, receives spent while the lease runs", func(q *queue.Settings) { q.VisibilityTimeout = time.Minute; q.MaxReceives = 2 }, time.Minute, false, "MaxReceives"},
		{"a retention shorter than a retry", func(q *queue.Settings) { q.Retention = 10 * time.Minute }, 2 * time.Minute, true, "Retention"},
		{"a retention SQS refuses", func(q *queue.Settings) { q.Retention = time.Second }, time.Minute, true, "Retention"},
		{"no timeout", func(*queue.Settings) {}, 0, true, "Timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := ok
			c.edit(&q)
			_, err := idemqcdk.CheckQueue(q, c.timeout, c.backoff)
			var se *idemqcdk.SettingError
			if !errors.As(err, &se) || se.Field != c.field {
				t.Errorf("CheckQueue: %v, want a *SettingError for %s", err, c.field)
			}
		})
	}
}

// TestAttachmentGrantRedrive lets an operator's role redrive the
// dead-letter queue into the queue, in the role's own policy, and adds no
// managed policy.
func TestAttachmentGrantRedrive(t *testing.T) {
	app := newUsersApp(t, teamQueue)
	a := idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{
		Function: app.function, Queue: app.queue, Request: &request.Identity{Namespace: "orders"},
	})
	operator := awsiam.NewRole(app.stack, jsii.String("Operator"), &awsiam.RoleProps{AssumedBy: awsiam.NewAccountRootPrincipal()})
	a.GrantRedrive(operator)
	tpl := assertions.Template_FromStack(app.stack, nil)
	check(t, "the operator's grant", func() {
		tpl.ResourceCountIs(jsii.String("AWS::IAM::ManagedPolicy"), jsii.Number(0))
		tpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), obj{
			"Roles": arr{ref(*tpl.GetResourceId(jsii.String("AWS::IAM::Role"), obj{"Properties": obj{"AssumeRolePolicyDocument": obj{"Statement": arr{obj{
				"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": assertions.Match_ObjectLike(&obj{"AWS": assertions.Match_AnyValue()})}}}}}))},
			"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(&arr{
				assertions.Match_ObjectLike(&obj{"Sid": "RedriveFromDeadLetterQueue", "Action": assertions.Match_ArrayWith(&arr{"sqs:StartMessageMoveTask"})}),
				assertions.Match_ObjectLike(&obj{"Sid": "RedriveToQueue", "Action": "sqs:SendMessage"}),
			})},
		})
	})
}

// Ensure the refusals' messages are readable in a panic's output.
func ExampleSettingError() {
	err := &idemqcdk.SettingError{Field: "VisibilityTimeout", Msg: "the queue's VisibilityTimeout 30s is shorter than the function's Timeout 45s"}
	fmt.Println(err)
	// Output: idemqcdk: the queue's VisibilityTimeout 30s is shorter than the function's Timeout 45s
}
