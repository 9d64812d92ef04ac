package durable_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// One execution per key: duplicates of a message in one batch, in later
// batches, and a re-sent message (a new message id, its body encoded
// anew) all find the execution the first started, and are acknowledged.
func TestOneExecutionPerKey(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	resent := msg("m4", "", "")
	resent.Body = `{ "prompt" : "summarise doc 1", "idempotency_key" : "order-1" }`
	first := []events.SQSMessage{msg("m1", "order-1", "summarise doc 1"), msg("m2", "order-2", "summarise doc 2"), msg("m1", "order-1", "summarise doc 1")}
	if acked, _ := b.handle(t, first...); len(acked) != 3 {
		t.Fatalf("acked %v, want all", acked)
	}
	if acked, _ := b.handle(t, msg("m1", "order-1", "summarise doc 1"), resent, msg("m2", "order-2", "summarise doc 2")); len(acked) != 3 {
		t.Fatalf("redeliveries: acked %v, want all", acked)
	}
	execs := b.srv.Executions()
	if len(execs) != 2 {
		t.Fatalf("%d executions, want 2: %+v", len(execs), execs)
	}
	for _, e := range execs {
		if e.Function != "summarise" || e.Qualifier != "prod" {
			t.Errorf("execution %s of %s:%s, want %s", e.Name, e.Function, e.Qualifier, function)
		}
	}
	e, ok := b.srv.Execution("summarise", name("order-1"))
	if !ok {
		t.Fatalf("no execution named order-1: %+v", execs)
	}
	if want := `{"idempotency_key":"order-1","prompt":"summarise doc 1"}`; string(e.Payload) != want {
		t.Errorf("payload %s, want the body's canonical form %s", e.Payload, want)
	}
	for _, r := range b.srv.Requests() {
		if r.InvocationType != "Event" {
			t.Errorf("invocation type %q, want Event", r.InvocationType)
		}
	}
}

// Dispatch returns the execution Lambda named, the same for every
// delivery.
func TestDispatchReturnsTheExecution(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	s1, err := b.d.Dispatch(context.Background(), msg("m1", "doc:7", "p"))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := b.d.Dispatch(context.Background(), msg("m9", "doc:7", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if s1 != s2 || s1.Key != "summarise#doc:7" || s1.Name != name("doc:7") || s1.ExecutionArn == "" {
		t.Errorf("starts %+v and %+v, want one execution of key summarise#doc:7 named %s", s1, s2, name("doc:7"))
	}
	if e, ok := b.srv.Execution("summarise", s1.Name); !ok || e.Arn != s1.ExecutionArn {
		t.Errorf("execution %+v (%v), want %s", e, ok, s1.ExecutionArn)
	}
}

// A key reused for a different payload is never acknowledged, on its
// first delivery or any later one, and the first request's execution
// keeps its payload.
func TestKeyReusedIsNotAcknowledged(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	if acked, _ := b.handle(t, msg("m1", "order-1", "summarise doc 1")); len(acked) != 1 {
		t.Fatal("first request not acknowledged")
	}
	other := msg("m2", "order-1", "summarise doc 2")
	for range 3 {
		if acked, _ := b.handle(t, other, msg("m3", "order-3", "p")); !slices.Equal(acked, []string{"m3"}) {
			t.Fatalf("acked %v, want only m3", acked)
		}
	}
	_, err := b.d.Dispatch(context.Background(), other)
	var re *handler.RecordError
	var taken *types.DurableExecutionAlreadyStartedException
	if !errors.Is(err, idem.ErrPayloadMismatch) || !errors.As(err, &re) || re.Key != "summarise#order-1" || re.Op != idem.OpRun || re.MessageID != "m2" || !strings.Contains(err.Error(), durable.ExecutionName("summarise#order-1")) || !errors.As(err, &taken) {
		t.Errorf("err = %v, want a handler.RecordError for m2 key summarise#order-1 naming its execution, with idem.ErrPayloadMismatch and Lambda's exception", err)
	}
	if e, _ := b.srv.Execution("summarise", name("order-1")); string(e.Payload) != `{"idempotency_key":"order-1","prompt":"summarise doc 1"}` {
		t.Errorf("execution's payload became %s", e.Payload)
	}
	if n := len(b.srv.Executions()); n != 2 {
		t.Errorf("%d executions, want 2", n)
	}
}

// A lost start answer: Lambda starts the execution and the connection
// drops before its answer. With the SDK's retries off, the record is not
// acknowledged (nothing proves the start) and its next delivery finds the
// execution; with them on (the default), the SDK's own retry does. Either
// way one execution.
func TestLostStartAnswer(t *testing.T) {
	t.Parallel()
	for _, attempts := range []int{1, 0} {
		b := setup(t, attempts)
		dropped := map[string]bool{}
		b.srv.SetFault(func(r durabletest.Request) durabletest.Fault {
			if !dropped[r.Name] {
				dropped[r.Name] = true
				return durabletest.DropAfter
			}
			return durabletest.Answer
		})
		m := msg("m1", "order-1", "p")
		acked, _ := b.handle(t, m)
		switch {
		case attempts == 1 && len(acked) != 0:
			t.Errorf("without retries: acknowledged a start whose answer was lost")
		case attempts == 0 && len(acked) != 1:
			t.Errorf("with the SDK's retries: not acknowledged")
		}
		if _, ok := b.srv.Execution("summarise", name("order-1")); !ok {
			t.Fatalf("attempts %d: the start was not applied", attempts)
		}
		if acked, _ := b.handle(t, m); len(acked) != 1 {
			t.Errorf("attempts %d: the next delivery was not acknowledged", attempts)
		}
		if n := len(b.srv.Executions()); n != 1 {
			t.Errorf("attempts %d: %d executions, want 1", attempts, n)
		}
	}
}

// Every answer that does not prove a start is a batch item failure:
// throttling, a server error, a connection dropped before the start.
func TestFailuresAreRetried(t *testing.T) {
	t.Parallel()
	for _, f := range []durabletest.Fault{durabletest.Throttle, durabletest.ServerError, durabletest.DropBefore} {
		b := setup(t, 2)
		b.srv.SetFault(func(durabletest.Request) durabletest.Fault { return f })
		if acked, failed := b.handle(t, msg("m1", "k1", "p"), msg("m2", "k2", "p")); len(acked) != 0 || len(failed) != 2 {
			t.Errorf("fault %d: acked %v", f, acked)
		}
		_, err := b.d.Dispatch(context.Background(), msg("m1", "k1", "p"))
		var throttled *types.TooManyRequestsException
		if f == durabletest.Throttle && !errors.As(err, &throttled) {
			t.Errorf("throttled: err = %v, want TooManyRequestsException", err)
		}
		if n := len(b.srv.Executions()); n != 0 {
			t.Errorf("fault %d: %d executions", f, n)
		}
	}
}

// A record without a key, with a bad key, or whose body is not JSON is
// not acknowledged and starts nothing.
func TestUnusableRecordsStartNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, 0, durable.WithRequest(request.Identity{Namespace: namespace, KeyAttribute: "key"}))
	str := func(s string) *string { return &s }
	noKey := msg("m1", "", "p")
	notJSON := events.SQSMessage{MessageId: "m2", Body: "plain text",
		MessageAttributes: map[string]events.SQSMessageAttribute{"key": {DataType: "String", StringValue: str("k2")}}}
	dupMember := events.SQSMessage{MessageId: "m3", Body: `{"a":1,"a":2}`,
		MessageAttributes: map[string]events.SQSMessageAttribute{"key": {DataType: "String", StringValue: str("k3")}}}
	if acked, _ := b.handle(t, noKey, notJSON, dupMember); len(acked) != 0 {
		t.Errorf("acked %v", acked)
	}
	if n := len(b.srv.Requests()); n != 0 {
		t.Errorf("%d Invoke requests, want none", n)
	}
	for m, want := range map[*events.SQSMessage]error{&noKey: idem.ErrNoKey, &notJSON: request.ErrBadBody, &dupMember: request.ErrBadBody} {
		if _, err := b.d.Dispatch(context.Background(), *m); !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", m.MessageId, err, want)
		}
	}
}

// fakeInvoker answers every Invoke with out, err, or panics.
type fakeInvoker struct {
	out   *lambda.InvokeOutput
	err   error
	panic bool
	calls int
}

func (f *fakeInvoker) Invoke(context.Context, *lambda.InvokeInput, ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	f.calls++
	if f.panic {
		panic("client bug")
	}
	return f.out, f.err
}

// An invoke accepted without a durable execution ARN (a function that is
// not durable) and a client's panic are failures: the record comes back,
// and, the batch's only one, fails the invocation (handler.ErrBatchFailed,
// wrapping the cause). Dispatch returns the first; the second is its
// caller's panic, which Handle recovered.
func TestNoExecutionNoAck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		inv  *fakeInvoker
		want error
	}{
		{&fakeInvoker{out: &lambda.InvokeOutput{StatusCode: 202}}, durable.ErrNotDurable},
		{&fakeInvoker{}, durable.ErrNotDurable},
		{&fakeInvoker{panic: true}, handler.ErrPanic},
	} {
		d, err := durable.New(tc.inv, function, quiet, inNamespace)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := d.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg("m1", "k", "p")}})
		if !errors.Is(err, handler.ErrBatchFailed) || !errors.Is(err, tc.want) || len(resp.BatchItemFailures) != 1 {
			t.Errorf("%v: response %+v, %v; want m1 failed, and the invocation", tc.want, resp, err)
		}
		if tc.inv.panic {
			continue
		}
		if _, err := d.Dispatch(context.Background(), msg("m1", "k", "p")); !errors.Is(err, tc.want) {
			t.Errorf("err = %v, want %v", err, tc.want)
		}
	}
}

// A FIFO batch starts in order and, after its first failure, starts
// nothing more: every later record fails.
func TestFIFOStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	fifo := func(m events.SQSMessage) events.SQSMessage {
		m.EventSourceARN = "arn:aws:sqs:us-east-1:123456789012:requests.fifo"
		return m
	}
	b.handle(t, fifo(msg("m0", "k2", "first")))
	batch := []events.SQSMessage{fifo(msg("m1", "k1", "p")), fifo(msg("m2", "k2", "changed")), fifo(msg("m3", "k3", "p"))}
	acked, failed := b.handle(t, batch...)
	if !slices.Equal(acked, []string{"m1"}) || !slices.Equal(failed, []string{"m2", "m3"}) {
		t.Errorf("acked %v failed %v, want m1 acked, m2 and m3 failed", acked, failed)
	}
	if _, ok := b.srv.Execution("summarise", name("k3")); ok {
		t.Errorf("k3 started after an earlier record of its FIFO batch failed")
	}
}

// A failed record without a message id fails the whole batch.
func TestNoMessageIDFailsTheBatch(t *testing.T) {
	t.Parallel()
	b := setup(t, 0)
	if _, err := b.d.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg("", "", "p")}}); err == nil {
		t.Error("no error for a failed record without a message id")
	}
}

// New refuses what cannot work.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	inv := &fakeInvoker{}
	for _, tc := range []struct {
		name, function, field string
		opts                  []durable.Option
	}{
		{"nil client", function, "client", nil},
		{"unqualified", "summarise", "function", nil},
		{"unqualified ARN", "arn:aws:lambda:us-east-1:123456789012:function:summarise", "function", nil},
		{"empty qualifier", "summarise:", "function", nil},
		{"empty", "", "function", nil},
		{"two key sources", function, "KeyAttribute", []durable.Option{durable.WithRequest(request.Identity{KeyField: "a", KeyAttribute: "b"})}},
		{"bad namespace", function, "Namespace", []durable.Option{durable.WithRequest(request.Identity{Namespace: "a\x00b"})}},
		{"concurrency", function, "Concurrency", []durable.Option{durable.WithConcurrency(-1)}},
		{"nil option", function, "options[0]", []durable.Option{nil}},
	} {
		var client durable.Invoker = inv
		if tc.field == "client" {
			client = nil
		}
		_, err := durable.New(client, tc.function, append(slices.Clone(tc.opts), quiet)...)
		var ce *idem.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: err = %v, want a ConfigError naming %s", tc.name, err, tc.field)
		}
	}
	for _, fn := range []string{"summarise:prod", "summarise:3", "summarise:$LATEST", "123456789012:function:summarise:prod",
		"arn:aws:lambda:us-east-1:123456789012:function:summarise:prod"} {
		if _, err := durable.New(inv, fn, quiet); err != nil {
			t.Errorf("%s: %v", fn, err)
		}
	}
}
