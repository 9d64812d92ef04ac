package handler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// Func is the work done for one message, once per idempotency key. Its
// result is stored with the key and handed to later duplicates (see
// WithReplayHook). An error releases the key and reports the message as a
// batch item failure, so the queue delivers it again.
type Func func(ctx context.Context, msg events.SQSMessage) ([]byte, error)

// Handler is what New and WrapSQS return: a Lambda handler for SQS events with
// partial batch responses, exactly what lambda.Start accepts. The event
// source mapping must have FunctionResponseTypes ["ReportBatchItemFailures"]
// or Lambda ignores the response and retries whole batches.
type Handler = func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// WrapSQS is New for a program's wiring, where a bad setting is a
// programmer's error: it returns New's handler, and panics with New's
// error (an *idem.ConfigError naming the setting) if New fails, as
// regexp.MustCompile does:
//
//	lambda.Start(handler.WrapSQS(store, fn))
func WrapSQS(store idem.Store, fn Func, opts ...Option) Handler {
	h, err := New(store, fn, opts...)
	if err != nil {
		panic(err)
	}
	return h
}

// programName is the running executable's base name ("handler.test",
// "worker"; Windows' ".exe" dropped), or "" if it has none.
func programName() string {
	if len(os.Args) == 0 {
		return ""
	}
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if name == "." || name == string(filepath.Separator) {
		return ""
	}
	return strings.ToValidUTF8(name, "")
}

// wrapper holds what every batch of one wrapped handler shares. Batches
// run at once when the runtime runs invocations side by side (Lambda
// Managed Instances, AWS_LAMBDA_MAX_CONCURRENCY above 1), so what they
// share is read-only after New, safe for concurrent use, or guarded
// here.
type wrapper struct {
	store idem.Store
	fn    Func
	// step, when set, settles each record instead of a claim of store
	// and fn (NewStepHandler); store and fn are then nil.
	step     StepFunc
	settings settings
	cache    *cache // nil: off; locks itself
	// flights are the keys batches are settling now, so that a batch
	// running at the same time takes their outcome; they lock themselves.
	flights flights

	emfMu sync.Mutex // one EMF line at a time: the writer need not be safe for concurrent use
}

func (w *wrapper) handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	b := newBatch(ctx, w, event.Records)
	b.run()
	resp, err := b.respond()
	if b.endBatch != nil {
		b.endBatch(BatchEnd{Failures: len(resp.BatchItemFailures), Err: err})
	}
	return resp, err
}
