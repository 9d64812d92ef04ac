package handler_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/request"
)

// spanKey carries, in the contexts the recording tracer returns, the
// name of the span they belong to.
type spanKey struct{}

// recordingTracer is a handler.Tracer that records what it is told: each
// span's parent (the span named in the context it was started with) and
// how it ended.
type recordingTracer struct {
	mu      sync.Mutex
	batches []handler.BatchStart
	spans   map[string]*span // by name: "batch", "record m1", "claim m1"...
	order   []string
}

type span struct {
	parent string
	ends   int
	record handler.RecordEnd
	store  handler.StoreCallEnd
	batch  handler.BatchEnd
}

func newRecordingTracer() *recordingTracer { return &recordingTracer{spans: map[string]*span{}} }

func (t *recordingTracer) start(ctx context.Context, name string) (context.Context, *span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	parent, _ := ctx.Value(spanKey{}).(string)
	for t.spans[name] != nil { // a second claim of one record: "claim m1 #2"
		name += "+"
	}
	s := &span{parent: parent}
	t.spans[name] = s
	t.order = append(t.order, name)
	return context.WithValue(ctx, spanKey{}, name), s
}

func (t *recordingTracer) end(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f()
}

func (t *recordingTracer) StartBatch(ctx context.Context, b handler.BatchStart) (context.Context, func(handler.BatchEnd)) {
	ctx, s := t.start(ctx, "batch")
	t.mu.Lock()
	t.batches = append(t.batches, b)
	t.mu.Unlock()
	return ctx, func(e handler.BatchEnd) { t.end(func() { s.ends++; s.batch = e }) }
}

func (t *recordingTracer) StartRecord(ctx context.Context, r handler.RecordStart) (context.Context, func(handler.RecordEnd)) {
	ctx, s := t.start(ctx, "record "+r.Message.MessageId)
	return ctx, func(e handler.RecordEnd) { t.end(func() { s.ends++; s.record = e }) }
}

func (t *recordingTracer) StartStoreCall(ctx context.Context, c handler.StoreCallStart) (context.Context, func(handler.StoreCallEnd)) {
	parent, _ := ctx.Value(spanKey{}).(string)
	ctx, s := t.start(ctx, string(c.Op)+" under "+parent)
	return ctx, func(e handler.StoreCallEnd) { t.end(func() { s.ends++; s.store = e }) }
}

// TestTracerSeesEveryRecord checks that with a Tracer each record gets one
// span, ended once with its outcome however it ends (run, copied, failed
// in prepare, panicked, exited, blocked by FIFO), under the batch's span;
// that each store call gets one under its record's; and that the function
// runs under its record's.
func TestTracerSeesEveryRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tracer := newRecordingTracer()
	ranUnder := map[string]string{}
	var mu sync.Mutex
	fn := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		mu.Lock()
		ranUnder[msg.MessageId], _ = ctx.Value(spanKey{}).(string)
		mu.Unlock()
		switch msg.MessageId {
		case "m-panics":
			panic("boom")
		case "m-exits":
			runtime.Goexit()
		case "f-fails":
			return nil, errors.New("no")
		}
		return []byte("r"), nil
	}
	h := b.wrap(fn, handler.WithTracer(tracer), handler.WithConcurrency(1))
	bad := handlerbundle.Msg("m-bad", "")
	bad.Body = "not json"
	handlerbundle.WantIDs(t, b.Invoke(h,
		handlerbundle.Msg("m-runs", "k1"), handlerbundle.Msg("m-copy", "k1"), bad,
		handlerbundle.Msg("m-panics", "k2"), handlerbundle.Msg("m-exits", "k3")),
		"m-bad", "m-panics", "m-exits")
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.FIFOMsg("f-fails", "k4", "g"), handlerbundle.FIFOMsg("f-blocked", "k5", "g")),
		"f-fails", "f-blocked")

	want := map[string]handler.RecordOutcome{
		"m-runs": "executed", "m-copy": "copy", "m-bad": "failed",
		"m-panics": "failed", "m-exits": "failed",
		"f-fails": "failed", "f-blocked": "skipped",
	}
	wantErr := map[string]error{"m-bad": request.ErrBadBody, "m-panics": handler.ErrPanic, "m-exits": handler.ErrNoOutcome, "f-blocked": handler.ErrFIFOBlocked}
	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	for id, outcome := range want {
		s := tracer.spans["record "+id]
		switch {
		case s == nil:
			t.Errorf("%s: no record span; spans %v", id, tracer.order)
			continue
		case s.ends != 1:
			t.Errorf("%s: record span ended %d times, want once", id, s.ends)
		case s.parent != "batch" && s.parent != "batch+":
			t.Errorf("%s: record span under %q, want the batch's", id, s.parent)
		}
		if s.record.Outcome != outcome {
			t.Errorf("%s: outcome %q, want %q", id, s.record.Outcome, outcome)
		}
		if (s.record.Err == nil) != (outcome == "executed" || outcome == "copy") {
			t.Errorf("%s: error %v with outcome %s", id, s.record.Err, outcome)
		}
		if w := wantErr[id]; w != nil && !errors.Is(s.record.Err, w) {
			t.Errorf("%s: error %v, want %v", id, s.record.Err, w)
		}
	}
	for _, id := range []string{"m-runs", "m-panics", "m-exits", "f-fails"} {
		if ranUnder[id] != "record "+id {
			t.Errorf("%s: the function ran under %q, want its record's span", id, ranUnder[id])
		}
	}
	// The store calls, under their records' spans: a claim and a
	// completion for the one that ran, a claim and a release for those
	// that failed; nothing for the copy (its leader's result) or the
	// records that never reached the store. m-exits leaves its claim to
	// its lease.
	var calls []string
	for _, name := range tracer.order {
		if s := tracer.spans[name]; name != "batch" && name != "batch+" && s.parent != "batch" && s.parent != "batch+" {
			calls = append(calls, name)
			if s.ends != 1 {
				t.Errorf("%s ended %d times, want once", name, s.ends)
			}
		}
	}
	slices.Sort(calls)
	wantCalls := []string{
		"claim under record f-fails", "claim under record m-exits", "claim under record m-panics", "claim under record m-runs",
		"complete under record m-runs", "release under record f-fails", "release under record m-panics",
	}
	if !slices.Equal(calls, wantCalls) {
		t.Errorf("store call spans %q, want %q", calls, wantCalls)
	}
	if got := tracer.spans["claim under record m-runs"].store.Claim; got != "claimed" {
		t.Errorf("m-runs's claim answered %q, want claimed", got)
	}
	if len(tracer.batches) != 2 || len(tracer.batches[0].Records) != 5 || tracer.batches[0].QueueURL != "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs" || !tracer.batches[1].FIFO {
		t.Errorf("batches %+v, want 5 records from jobs, then a FIFO batch", tracer.batches)
	}
	if s := tracer.spans["batch"]; s.ends != 1 || s.batch.Failures != 3 {
		t.Errorf("first batch span ended %d times with %+v, want once with 3 failures", s.ends, s.batch)
	}
}

// TestWithTracerNil checks that a nil Tracer is the default: off.
func TestWithTracerNil(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil, handler.WithTracer(nil))
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
}
