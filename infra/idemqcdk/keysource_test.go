//go:build idemq_keysource

package idemqcdk_test

import (
	"slices"
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

// The second key source of a build with the tag idemq_keysource (make
// keysource), a row of request's table alone, reaches the deployed
// functions with no change to the constructs: from its context key
// (idemq:keyDeduplicationId) or from WorkerProps.Request, the worker and
// the front door read it back from their environment, and the key they
// read is the message's deduplication id. Another key function, which no
// variable carries, is still refused.
func TestSecondKeySource(t *testing.T) {
	msg := events.SQSMessage{Body: `{"idempotency_key":"not this"}`, Attributes: map[string]string{"MessageDeduplicationId": "d-1"}}
	readsDeduplicationID := func(t *testing.T, how string, read map[idemqenv.Program]idemqenv.Settings) {
		t.Helper()
		for _, p := range []idemqenv.Program{idemqenv.Worker, idemqenv.FrontDoor} {
			r, err := request.NewReader(read[p].Request)
			if err != nil {
				t.Fatalf("%s: the %v's Identity %+v: %v", how, p, read[p].Request, err)
			}
			if id, err := r.ReadKey(msg); err != nil || id.Key != "orders#d-1" {
				t.Errorf("%s: the %v reads %+v, %v; want the key orders#d-1", how, p, id, err)
			}
		}
	}
	readsDeduplicationID(t, "the context key", byProgram(t, readEnvironments(t, synth(t, map[string]any{
		"idemq:namespace": "orders", "idemq:keyField": nil, "idemq:keyDeduplicationId": "true", "idemq:frontDoor": true,
	}), map[string]bool{})))

	i := slices.IndexFunc(request.Fields(), func(f request.Field) bool { return f.Name == "KeyFunc" })
	if i < 0 || request.Fields()[i].Context != "idemq:keyDeduplicationId" {
		t.Fatalf("request.Fields() has no KeyFunc row with this build's context key (at %d)", i)
	}
	f := request.Fields()[i]
	id := request.Identity{Namespace: "orders"}
	if err := f.Set(&id, []string{"true"}); err != nil {
		t.Fatal(err)
	}
	stack := awscdk.NewStack(newApp(t, nil), jsii.String("Users"), nil)
	idemqcdk.NewWorker(stack, jsii.String("Jobs"), &idemqcdk.WorkerProps{
		Code: awslambda.Code_FromAsset(jsii.String(prebuilt(t)), nil), Request: id, FrontDoor: true,
	})
	readsDeduplicationID(t, "WorkerProps.Request", byProgram(t, readEnvironments(t, assertions.Template_FromStack(stack, nil), map[string]bool{})))

	other := request.Identity{Namespace: "orders", KeyFunc: func(events.SQSMessage) (string, error) { return "k", nil }}
	if err := (&idemqcdk.WorkerProps{Request: other}).Check(); err == nil || !strings.Contains(err.Error(), "no IDEMQ_ variable carries it") {
		t.Errorf("another key function: %v; want it refused", err)
	}
}
