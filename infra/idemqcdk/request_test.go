package idemqcdk_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// Who a request is reaches every function whole: each key rule an
// environment can carry, given to NewWorker (its worker and its front
// door), to NewAttachment or by the context keys, is the request.Identity
// the worker's and the front door's reader (idemqenv) read back from the
// synthesized template, so the front door reads the records the worker
// writes under every rule.
func TestRequestReachesEveryFunction(t *testing.T) {
	ids := []request.Identity{
		{Namespace: "docs", KeyFields: []string{"document_id", "version"}},
		{Namespace: "docs", KeyFields: []string{"document_id", "meta.version"}, FingerprintFields: []string{"text", "meta.lang"}},
		{Namespace: "mail", KeyAttribute: "request-id", FingerprintFields: []string{"to"}},
		{Namespace: "jobs", KeyField: `order\.id`},
		{Namespace: "jobs", FingerprintFields: []string{"prompt"}},
	}
	for _, id := range ids {
		want := id
		if want.KeyField == "" && want.KeyFields == nil && want.KeyAttribute == "" {
			want.KeyField = request.DefaultKeyField
		}
		t.Run(fmt.Sprintf("worker %+v", id), func(t *testing.T) {
			stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
			idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
				Code: awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil), Request: id, FrontDoor: true,
			})
			read := byProgram(t, readEnvironments(t, assertions.Template_FromStack(stack, nil), map[string]bool{}))
			for _, p := range []idemqenv.Program{idemqenv.Worker, idemqenv.FrontDoor} {
				if got := read[p].Request; !reflect.DeepEqual(got, want) {
					t.Errorf("the %v reads %+v, want %+v", p, got, want)
				}
			}
		})
		t.Run(fmt.Sprintf("attachment %+v", id), func(t *testing.T) {
			app := newUsersApp(t, teamQueue)
			idemqcdk.NewAttachment(app.stack, jsii.String("Idemq"), &idemqcdk.AttachmentProps{Function: app.function, Queue: app.queue, Request: &id})
			for _, s := range readEnvironments(t, assertions.Template_FromStack(app.stack, nil), map[string]bool{}) {
				if !reflect.DeepEqual(s.Request, want) {
					t.Errorf("the team's function reads %+v, want %+v", s.Request, want)
				}
			}
		})
	}
	// The context keys: a list as a JSON array or as one string.
	for _, keyFields := range []any{[]any{"document_id", "version"}, "document_id, version"} {
		read := byProgram(t, readEnvironments(t, synth(t, map[string]any{
			"idemq:namespace": "docs", "idemq:keyField": nil, "idemq:keyFields": keyFields, "idemq:fingerprintFields": "text", "idemq:frontDoor": true,
		}), map[string]bool{}))
		want := request.Identity{Namespace: "docs", KeyFields: []string{"document_id", "version"}, FingerprintFields: []string{"text"}}
		for _, p := range []idemqenv.Program{idemqenv.Worker, idemqenv.FrontDoor} {
			if got := read[p].Request; !reflect.DeepEqual(got, want) {
				t.Errorf("idemq:keyFields %#v: the %v reads %+v, want %+v", keyFields, p, got, want)
			}
		}
	}
}

// What the environment cannot carry is refused at synth, naming the
// field of Request: a key function, the payload check turned off, a list
// member the comma-separated variable would split or trim, and what
// request.Identity.Validate refuses (two key sources).
func TestRequestRefusals(t *testing.T) {
	keyFunc := func(events.SQSMessage) (string, error) { return "k", nil }
	for _, c := range []struct {
		name  string
		id    request.Identity
		field string
		says  string
	}{
		{"a key function", request.Identity{Namespace: "jobs", KeyFunc: keyFunc}, "Request.KeyFunc", "no IDEMQ_ variable carries it"},
		{"no fingerprint", request.Identity{Namespace: "jobs", NoFingerprint: true}, "Request.NoFingerprint", "no IDEMQ_ variable carries it"},
		{"a comma in a fingerprint member", request.Identity{Namespace: "jobs", FingerprintFields: []string{"a,b"}}, "Request.FingerprintFields", "IDEMQ_FINGERPRINT_FIELDS"},
		{"white space around a key member", request.Identity{Namespace: "jobs", KeyFields: []string{" id"}}, "Request.KeyFields", "IDEMQ_KEY_FIELDS"},
		{"two key sources", request.Identity{Namespace: "jobs", KeyField: "id", KeyAttribute: "id"}, "Request.KeyAttribute", "one source"},
		{"a bad key attribute", request.Identity{Namespace: "jobs", KeyAttribute: "AWS.x"}, "Request.KeyAttribute", "attribute name"},
		{"a control character in the namespace", request.Identity{Namespace: "jo\x01bs"}, "Request.Namespace", "Request.Namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := (&idemqcdk.WorkerProps{Request: c.id}).Check()
			var se *idemqcdk.SettingError
			if !errors.As(err, &se) || se.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Errorf("Check: got %v (field %q), want a *SettingError of %s saying %q", err, field(se), c.field, c.says)
			}
			app := newUsersApp(t, teamQueue)
			id := c.id
			if got := attachRefused(t, app, idemqcdk.AttachmentProps{Request: &id}); !strings.Contains(got, "AttachmentProps."+c.field) {
				t.Errorf("NewAttachment: got %s, want a synth error naming AttachmentProps.%s", got, c.field)
			}
		})
	}
}

// field is se's Field, or "" for nil.
func field(se *idemqcdk.SettingError) string {
	if se == nil {
		return ""
	}
	return se.Field
}
