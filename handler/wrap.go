package handler

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem"
)

// Func is the work done for one message, once per idempotency key. Its
// result is stored with the key and handed to later duplicates (see
// WithReplayHook). An error releases the key and reports the message as a
// batch item failure, so the queue delivers it again.
type Func func(ctx context.Context, msg events.SQSMessage) ([]byte, error)

// Handler is what WrapSQS returns: a Lambda handler for SQS events with
// partial batch responses, exactly what lambda.Start accepts. The event
// source mapping must have FunctionResponseTypes ["ReportBatchItemFailures"]
// or Lambda ignores the response and retries whole batches.
type Handler = func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// WrapSQS returns a Lambda handler that runs fn for each record of an SQS
// batch at most once per idempotency key, claiming the key in store first,
// and reports the records that must come back as batch item failures:
//
//	lambda.Start(handler.WrapSQS(store, fn))
//
// With no options the key is the body's "idempotency_key" field, namespaced
// by the function's name, and the whole body is the payload fingerprint.
//
// Outside Lambda, without WithNamespace, the namespace is the program's
// name (its executable's base name, like "handler.test"), with a warning
// logged: fine for tests and local runs, not for a table that other
// programs share. It panics, with a message naming the setting, if store,
// fn or an option is nil, if a setting cannot be safe (see Option and
// idem.Config), or if there is no namespace to be had. The handler returns an error only when a
// failed record has no message id (Lambda could not be told which one
// failed, so the whole batch must come back); store errors fail the records
// they touch.
func WrapSQS(store idem.Store, fn Func, opts ...Option) Handler {
	if store == nil {
		panic("handler: nil store")
	}
	if fn == nil {
		panic("handler: nil func")
	}
	o := options{
		namespace:   lambdacontext.FunctionName,
		keyName:     "body field " + DefaultKeyField,
		key:         fieldKey(DefaultKeyField),
		concurrency: DefaultConcurrency,
	}
	for i, opt := range opts {
		if opt == nil {
			panic(fmt.Sprintf("handler: option %d is nil", i))
		}
		opt(&o)
	}
	if o.fingerprint == nil {
		o.fingerprint = bodyFingerprint
		if o.natural {
			o.fingerprint = noFingerprint // see WithKeyFields
		}
	}
	o.claims = idem.NewConfig(o.idem...) // panics, naming the setting, on one that cannot be safe
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.namespace == "" {
		// Outside Lambda (a test, a local run): the program's name stands
		// in for the function's, as stable as the binary's name.
		if o.namespace = programName(); o.namespace == "" {
			panic("handler: no namespace: AWS_LAMBDA_FUNCTION_NAME is unset and the program has no name; pass handler.WithNamespace")
		}
		o.logger.Warn("idemq: no namespace (AWS_LAMBDA_FUNCTION_NAME is unset); using the program's name. "+
			"Programs sharing a table must each pass handler.WithNamespace", "namespace", o.namespace)
	}
	w := &wrapper{store: store, fn: fn, o: o}
	if o.cacheEntries > 0 {
		w.cache = newCache(o.cacheEntries, o.cacheBytes)
	}
	return w.handle
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
// share is read-only after WrapSQS, safe for concurrent use, or guarded
// here.
type wrapper struct {
	store idem.Store
	fn    Func
	o     options
	cache *cache // nil: off; locks itself
	// flights are the keys batches are settling now, so that a batch
	// running at the same time takes their outcome; they lock themselves.
	flights flights

	emfMu sync.Mutex // one EMF line at a time: the writer need not be safe for concurrent use
}

func (w *wrapper) handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	b := newBatch(ctx, w, event.Records)
	b.run()
	return b.respond()
}
