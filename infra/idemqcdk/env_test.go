package idemqcdk_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// functionEnvironments returns each function's environment variables, by
// its logical id, as the template has them: a value is a string or an
// intrinsic (a Ref, a GetAtt) CloudFormation resolves at deploy.
func functionEnvironments(tb testing.TB, env map[string]*map[string]any) map[string]map[string]any {
	tb.Helper()
	out := map[string]map[string]any{}
	for id, fn := range env {
		var r struct {
			Properties struct {
				Environment struct{ Variables map[string]any }
			}
		}
		raw, _ := json.Marshal(fn)
		if err := json.Unmarshal(raw, &r); err != nil {
			tb.Fatalf("function %s: %v", id, err)
		}
		out[id] = r.Properties.Environment.Variables
	}
	return out
}

// deployed is the value CloudFormation gives a variable whose template
// value is v: v itself, or for an intrinsic what it resolves to, by the
// variable's kind (a queue's Ref is its URL; a table's and a bucket's, a
// name).
func deployed(tb testing.TB, name string, v any) string {
	tb.Helper()
	if s, ok := v.(string); ok {
		return s
	}
	raw, _ := json.Marshal(v)
	ref := strings.ToLower(strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, string(raw)))
	vr, ok := idemqenv.Lookup(name)
	if !ok {
		tb.Fatalf("%s is no variable of idemqenv's", name)
	}
	if vr.Kind() == "URL" {
		return "https://sqs.eu-west-1.amazonaws.com/123456789012/" + ref
	}
	return ref
}

// readEnvironments reads each function's environment with the worker's
// reader (idemqenv.Read), by the function's logical id: it must take it
// without an error, and write each value back as it was (Environ). set
// collects the names of the variables seen.
func readEnvironments(t *testing.T, tpl assertions.Template, set map[string]bool) map[string]idemqenv.Settings {
	t.Helper()
	out := map[string]idemqenv.Settings{}
	for id, vars := range functionEnvironments(t, *tpl.FindResources(jsii.String("AWS::Lambda::Function"), nil)) {
		env := map[string]string{}
		for name, v := range vars {
			if !strings.HasPrefix(name, "IDEMQ_") {
				continue
			}
			env[name] = deployed(t, name, v)
			set[name] = true
		}
		if len(env) == 0 {
			continue // a function idemq configures nothing of
		}
		s, err := idemqenv.Read(func(name string) string { return env[name] })
		if err != nil {
			t.Errorf("function %s's environment %v: the worker's reader refuses it:\n%v", id, env, err)
			continue
		}
		back := s.Environ()
		for _, name := range slices.Sorted(maps.Keys(env)) {
			if back[name] != env[name] {
				t.Errorf("function %s: %s=%q reads back as %q", id, name, env[name], back[name])
			}
		}
		out[id] = s
	}
	return out
}

// byProgram returns the one settings of each program among read.
func byProgram(t *testing.T, read map[string]idemqenv.Settings) map[idemqenv.Program]idemqenv.Settings {
	t.Helper()
	out := map[idemqenv.Program]idemqenv.Settings{}
	for id, s := range read {
		if _, ok := out[s.Program]; ok {
			t.Errorf("function %s: a second %v", id, s.Program)
		}
		out[s.Program] = s
	}
	return out
}

// The CDK's environment is the worker's: every variable the construct
// sets, on the worker's function and on the front door's, with every prop
// that sets one, parses with the worker's reader (idemqenv.Read) without
// an error, each value as it was written (Environ writes it back the
// same), and means what the props said.
func TestEnvironmentIsTheWorkers(t *testing.T) {
	const secret = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:idemq/provider-key-AbCdEf"
	tpl := synth(t, map[string]any{
		"idemq:frontDoor": true, "idemq:frontDoorPublic": true, "idemq:providerApiKeySecret": secret,
		"idemq:tracing": "xray", "idemq:tracingLayerArn": collectorLayer, "idemq:keyField": "request_id", "idemq:namespace": "summarise",
	})
	set := map[string]bool{}
	read := readEnvironments(t, tpl, set)
	if len(read) != 2 {
		t.Fatalf("%d functions read, want the worker's and the front door's", len(read))
	}
	programs := byProgram(t, read)
	worker, front := programs[idemqenv.Worker], programs[idemqenv.FrontDoor]
	// The front door behind an AWS_IAM URL, each role session's keys its
	// own (idemq:frontDoorScope=session).
	session := byProgram(t, readEnvironments(t, synth(t, map[string]any{"idemq:frontDoor": true, "idemq:frontDoorScope": "session"}), set))
	if got := session[idemqenv.FrontDoor].FrontDoor.Scope; got != idemqenv.ScopeIAMSession {
		t.Errorf("the front door of idemq:frontDoorScope=session reads the scope %q, want %q", got, idemqenv.ScopeIAMSession)
	}
	// Every variable the construct sets, set here.
	for _, name := range []string{"IDEMQ_TABLE", "IDEMQ_RECORD_EXPIRY", "IDEMQ_CLOCK_SKEW", "IDEMQ_KEY_FIELD", "IDEMQ_NAMESPACE", "IDEMQ_BACKOFF",
		"IDEMQ_PROVIDER_URL", "IDEMQ_PROVIDER_API_KEY_SECRET", "IDEMQ_QUEUE", "IDEMQ_EMF_NAMESPACE", "IDEMQ_BLOB_BUCKET",
		"IDEMQ_BLOB_PREFIX", "IDEMQ_TRACING", "IDEMQ_MODE", "IDEMQ_FRONTDOOR_QUEUE_URL", "IDEMQ_FRONTDOOR_SCOPE"} {
		if !set[name] {
			t.Errorf("no function is given %s: the test does not cover it", name)
		}
	}
	// What the props said.
	if worker.Program != idemqenv.Worker || front.Program != idemqenv.FrontDoor {
		t.Fatalf("programs %v and %v, want a worker and a front door", worker.Program, front.Program)
	}
	for _, s := range []idemqenv.Settings{worker, front} {
		if s.Request.Namespace != "summarise" || s.Request.KeyField != "request_id" || s.Store.Kind != stores.DynamoDB || s.Store.Table == "" ||
			s.RecordExpiry == 0 || s.Blobs.Bucket == "" || s.Blobs.Prefix != idemqcdk.DefaultBlobPrefix || s.Tracing != "xray" {
			t.Errorf("%v settings %+v", s.Program, s)
		}
	}
	if worker.ClockSkew != idem.DefaultClockSkew || front.ClockSkew != idem.DefaultClockSkew {
		t.Errorf("clock-skew bounds %s (worker) and %s (front door), want idem.DefaultClockSkew, %s, on both", worker.ClockSkew, front.ClockSkew, idem.DefaultClockSkew)
	}
	if worker.RecordExpiry != front.RecordExpiry || worker.Store.Table != front.Store.Table || worker.Blobs.Bucket != front.Blobs.Bucket {
		t.Errorf("the front door reads other records than the worker writes: %+v and %+v", worker, front)
	}
	if !worker.Backoff || worker.EMFNamespace != idemqcdk.MetricNamespace || worker.Provider.URL != "https://api.openai.com/v1" ||
		worker.Provider.APIKeySecret != secret || worker.Queue.Retention == 0 || worker.Queue.DeadLetterRetention != idemqcdk.DLQRetention {
		t.Errorf("worker settings %+v", worker)
	}
	if front.FrontDoor.Scope != idemqenv.ScopeNone || front.FrontDoor.QueueURL == "" {
		t.Errorf("front door settings %+v", front.FrontDoor)
	}
}

// An Attachment's environment on a team's own function (the same
// handlerEnv as the Worker's) is the worker's too, for a function of the
// team's own on worker.FromEnv: with every prop that sets a variable, it
// reads without an error, each value as written, meaning what the props
// said; without the back-off or the bucket, those variables say so.
func TestAttachmentEnvironmentIsTheWorkers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props func(app usersApp) *idemqcdk.AttachmentProps
		check func(t *testing.T, s idemqenv.Settings)
	}{
		{"every prop", func(app usersApp) *idemqcdk.AttachmentProps {
			return &idemqcdk.AttachmentProps{Function: app.function, Queue: app.queue, Request: &request.Identity{Namespace: "orders", KeyField: "order.id"},
				RecordExpiry: awscdk.Duration_Hours(jsii.Number(600)), ResultBucket: jsii.Bool(true)}
		}, func(t *testing.T, s idemqenv.Settings) {
			if s.Request.Namespace != "orders" || s.Request.KeyField != "order.id" || s.RecordExpiry != 600*time.Hour || !s.Backoff ||
				s.Blobs.Bucket == "" || s.Blobs.Prefix != idemqcdk.DefaultBlobPrefix || s.EMFNamespace != idemqcdk.MetricNamespace ||
				s.Queue != (queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 6 * time.Minute, MaxReceives: 5, DeadLetterRetention: 14 * 24 * time.Hour}) {
				t.Errorf("settings %+v", s)
			}
		}},
		{"no back-off, no bucket", func(app usersApp) *idemqcdk.AttachmentProps {
			return &idemqcdk.AttachmentProps{Function: app.function, Queue: app.queue, Request: &request.Identity{Namespace: "orders"},
				DisableBackoff: jsii.Bool(true)}
		}, func(t *testing.T, s idemqenv.Settings) {
			if s.Backoff || s.Blobs != (idemqenv.BlobSettings{}) || s.Request.KeyField != "idempotency_key" {
				t.Errorf("settings %+v", s)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := newUsersApp(t, teamQueue)
			idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), tc.props(app))
			set := map[string]bool{}
			read := readEnvironments(t, assertions.Template_FromStack(app.stack, nil), set)
			if len(read) != 1 {
				t.Fatalf("%d functions read, want the team's", len(read))
			}
			for _, s := range read {
				if s.Program != idemqenv.Worker || s.Store.Kind != stores.DynamoDB || s.Store.Table == "" {
					t.Errorf("settings %+v, want a worker on the DynamoDB table", s)
				}
				tc.check(t, s)
			}
		})
	}
}
