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
// them, each with the path of the construct it is on.
func notes(t *testing.T, stack awscdk.Stack, errs bool) []note {
	t.Helper()
	e, w := allNotes(t, stack)
	if errs {
		return e
	}
	return w
}

// allNotes are the errors and the warnings of stack, from one synthesis.
// An app with cdk.json's @aws-cdk/core:annotationsInValidationReport fails
// its synth on an error (after the checks have run and printed the
// report); the notes are then read from the constructs' metadata.
func allNotes(t *testing.T, stack awscdk.Stack) (errs, warns []note) {
	t.Helper()
	add := func(to *[]note, path, data string) {
		n := note{path: path, msg: data}
		if sub := ackSuffix.FindStringSubmatch(n.msg); sub != nil {
			n.id, n.msg = sub[1], strings.TrimSuffix(n.msg, sub[0])
		}
		*to = append(*to, n)
	}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(r), "Validation failed") {
			panic(r)
		}
		errs, warns = madeNotes(stack)
	}()
	a := assertions.Annotations_FromStack(stack)
	for _, m := range *a.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
		//lint:ignore SA1019 the pinned assertions package returns no other type
		add(&errs, *m.Id, fmt.Sprint(m.Entry.Data))
	}
	for _, m := range *a.FindWarning(jsii.String("*"), assertions.Match_AnyValue()) {
		//lint:ignore SA1019 the pinned assertions package returns no other type
		add(&warns, *m.Id, fmt.Sprint(m.Entry.Data))
	}
	return errs, warns
}

// madeNotes are the errors and warnings the constructs of stack hold now,
// without a synthesis: those added as they were made (a refused setting,
// a costly one), not the checks' (made at synth) or CDK's own.
func madeNotes(stack awscdk.Stack) (errs, warns []note) {
	for _, c := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		for _, e := range *c.Node().Metadata() {
			if e.Type == nil {
				continue
			}
			n := note{path: "/" + *c.Node().Path(), msg: fmt.Sprint(e.Data)}
			if sub := ackSuffix.FindStringSubmatch(n.msg); sub != nil {
				n.id, n.msg = sub[1], strings.TrimSuffix(n.msg, sub[0])
			}
			switch *e.Type {
			case "aws:cdk:error":
				errs = append(errs, n)
			case "aws:cdk:warning":
				warns = append(warns, n)
			}
		}
	}
	return errs, warns
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

// refusal is the one error on c or under it, added as c was made (a
// refused setting; read without a synthesis, which would fail with it);
// none, or more than one, fails the test.
func refusal(t *testing.T, c constructs.IConstruct) string {
	t.Helper()
	errs, _ := madeNotes(awscdk.Stack_Of(c))
	var r []note
	for _, n := range errs {
		if p := "/" + *c.Node().Path(); n.path == p || strings.HasPrefix(n.path, p+"/") {
			r = append(r, n)
		}
	}
	if len(r) != 1 {
		t.Fatalf("%d synth errors under %s, want 1: %v", len(r), *c.Node().Path(), r)
	}
	return r[0].msg
}

// noNotes fails the test if stack has any synth error or warning: what
// `cdk synth --strict` needs.
func noNotes(t *testing.T, stack awscdk.Stack) {
	t.Helper()
	errs, warns := allNotes(t, stack)
	for _, n := range append(errs, warns...) {
		t.Errorf("synth note: %s", n)
	}
}
