package idemqcdk_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// note is a synth error or warning: the path of the construct it is on,
// its id (a warning's; "" for an error) and its message.
type note struct{ path, id, msg string }

func (n note) String() string {
	if n.id != "" {
		return fmt.Sprintf("%s [%s] %s", n.path, n.id, n.msg)
	}
	return n.path + " " + n.msg
}

// ackSuffix is what AddWarningV2 appends to a warning's message.
var ackSuffix = regexp.MustCompile(` \[ack: ([^\]]+)\]$`)

// notes are the errors (errs) or warnings of stack, as `cdk synth` shows
// them, each with the path of the construct it is on. An app with
// cdk.json's @aws-cdk/core:annotationsInValidationReport fails its synth
// on an error (after the checks have run and printed the report); the
// notes are then read from the constructs' metadata.
func notes(t *testing.T, stack awscdk.Stack, errs bool) (out []note) {
	t.Helper()
	add := func(path, data string) {
		n := note{path: path, msg: data}
		if sub := ackSuffix.FindStringSubmatch(n.msg); sub != nil {
			n.id, n.msg = sub[1], strings.TrimSuffix(n.msg, sub[0])
		}
		out = append(out, n)
	}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(r), "Validation failed") {
			panic(r)
		}
		out = nil
		typ := "aws:cdk:warning"
		if errs {
			typ = "aws:cdk:error"
		}
		for _, c := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
			for _, e := range *c.Node().Metadata() {
				if e.Type != nil && *e.Type == typ {
					add("/"+*c.Node().Path(), fmt.Sprint(e.Data))
				}
			}
		}
	}()
	a := assertions.Annotations_FromStack(stack)
	find := a.FindWarning
	if errs {
		find = a.FindError
	}
	for _, m := range *find(jsii.String("*"), assertions.Match_AnyValue()) {
		//lint:ignore SA1019 the pinned assertions package returns no other type
		add(*m.Id, fmt.Sprint(m.Entry.Data))
	}
	return out
}

// refusals are the synth errors of c's stack on c or under it.
func refusals(t *testing.T, c constructs.IConstruct) []note {
	t.Helper()
	var out []note
	for _, n := range notes(t, awscdk.Stack_Of(c), true) {
		if p := "/" + *c.Node().Path(); n.path == p || strings.HasPrefix(n.path, p+"/") {
			out = append(out, n)
		}
	}
	return out
}

// refusal is the one synth error on c or under it; none, or more than
// one, fails the test.
func refusal(t *testing.T, c constructs.IConstruct) string {
	t.Helper()
	r := refusals(t, c)
	if len(r) != 1 {
		t.Fatalf("%d synth errors under %s, want 1: %v", len(r), *c.Node().Path(), r)
	}
	return r[0].msg
}

// noNotes fails the test if stack has any synth error or warning: what
// `cdk synth --strict` needs.
func noNotes(t *testing.T, stack awscdk.Stack) {
	t.Helper()
	for _, errs := range []bool{true, false} {
		for _, n := range notes(t, stack, errs) {
			t.Errorf("synth note: %s", n)
		}
	}
}
