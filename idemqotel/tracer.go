package idemqotel

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// scopeName is the instrumentation scope of the spans: the name the
// tracer is made with.
const scopeName = "github.com/idemq/idemq/idemqotel"

// The attributes of idemq's own, beside the messaging conventions'.
const (
	// outcomeKey is a record span's outcome (handler.RecordOutcome):
	// executed, replayed, copy, cache_hit, in_progress, failed, skipped
	// or keyless.
	outcomeKey = attribute.Key("idemq.outcome")
	// tookOverKey is set on a record span whose claim took over a passed
	// lease or an expired record.
	tookOverKey = attribute.Key("idemq.took_over")
	// retryReasonKey is why a record that did not fail comes back: in
	// progress elsewhere, or not started (the deadline guard, FIFO).
	retryReasonKey = attribute.Key("idemq.retry_reason")
	// keyKey is the record's idempotency key, namespace included, on
	// record and store call spans: only with WithKeys.
	keyKey = attribute.Key("idemq.key")
	// claimAnswerKey is what a claim found: "claimed", "COMPLETED" or
	// "INPROGRESS" (idem.Claim.String).
	claimAnswerKey = attribute.Key("idemq.claim.answer")
	// batchItemFailuresKey is the number of batch item failures in a
	// batch's response.
	batchItemFailuresKey = attribute.Key("idemq.batch_item_failures")
)

// Config is how WithTracing's tracer makes its spans. It is declared,
// defaulted and checked here, once, as every idemq package does it
// (docs/options.md): a zero field is its default and the options only
// set fields. WithTracing applies the options over the zero Config and
// resolves it once; WithConfig passes a Config whole. The zero value takes every default.
type Config struct {
	// Propagator reads a message's trace context from its message
	// attributes. Defaults to propagation.TraceContext{}: the W3C
	// traceparent and tracestate attributes. The AWSTraceHeader system
	// attribute (X-Ray) is read when the propagator finds nothing.
	Propagator propagation.TextMapPropagator
	// MessageParent makes each record's span a child of its message's
	// trace context, continuing the producer's trace, with a link to the
	// batch's span; a message without one gets a child of the batch's
	// span. Defaults to false: a record's span is a child of the batch's
	// span, linked to its message's context.
	MessageParent bool
	// Keys puts each record's idempotency key on its span and on its
	// store calls' spans (keyKey), and leaves it in the errors the spans
	// describe. Defaults to false: keys can carry what a user sent, so
	// they are left out and cut out of error descriptions.
	Keys bool
	// LambdaTraceHeader makes a batch whose context carries no span a
	// child of the invocation's X-Ray trace header, which aws-lambda-go
	// puts in the context (Lambda's active tracing; see contextWithXRay).
	// With active tracing off the header says "not sampled", and a
	// parent-based sampler (the SDK's default) then records nothing.
	// Defaults to false.
	LambdaTraceHeader bool
}

// Option changes a Config; WithTracing applies them in order over the zero
// Config. An option only sets a field.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithMessageParent sets Config.MessageParent: each record's span
// continues its message's trace. Defaults to off: a record's span is a
// child of the batch's.
func WithMessageParent() Option { return func(c *Config) { c.MessageParent = true } }

// WithKeys sets Config.Keys: idempotency keys go on the spans. Defaults to
// off: keys are left out.
func WithKeys() Option { return func(c *Config) { c.Keys = true } }

// WithLambdaTraceHeader sets Config.LambdaTraceHeader: a batch continues
// the invocation's X-Ray trace. Defaults to off.
func WithLambdaTraceHeader() Option { return func(c *Config) { c.LambdaTraceHeader = true } }

// Validate reports every setting of c that cannot work, joined, or nil:
// every value of a Config can work, so it is nil. It is the resolve step
// WithTracing runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in c's defaults: the one place they are written.
func (c Config) resolve() (Config, error) {
	if c.Propagator == nil {
		c.Propagator = propagation.TraceContext{}
	}
	return c, nil
}

// otelTracer is handler.Tracer with OpenTelemetry: a span for each batch, each
// record and each store call (see the package documentation).
type otelTracer struct {
	tracer trace.Tracer
	cfg    Config
}

var _ handler.Tracer = (*otelTracer)(nil)

// newTracer returns a handler.Tracer making its spans with tp's tracer (named
// scopeName); a nil tp is the global one, otel.GetTracerProvider(). It
// returns an error joining an *idem.ConfigError for each nil option.
func newTracer(tp trace.TracerProvider, opts ...Option) (*otelTracer, error) {
	c, optErr := idem.ApplyOptions("idemqotel", opts)
	c, err := c.resolve()
	if err := errors.Join(optErr, err); err != nil {
		return nil, err
	}
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &otelTracer{tracer: tp.Tracer(scopeName), cfg: c}, nil
}

// WithTracing is the handler option that turns tracing on: a
// handler.Tracer making its spans with tp's tracer (named scopeName); a
// nil tp is the global one, otel.GetTracerProvider(). Like every idemq
// option that takes options of another package, it returns nil when one
// of opts is nil, and the handler's constructor refuses a nil option.
//
//	handler.New(store, fn, idemqotel.WithTracing(tp))
func WithTracing(tp trace.TracerProvider, opts ...Option) handler.Option {
	t, err := newTracer(tp, opts...)
	if err != nil {
		return nil
	}
	return handler.WithTracer(t)
}

// messaging are the attributes every span of a message or batch carries.
func messaging(queueURL string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.MessagingSystemAWSSQS,
		semconv.MessagingOperationName("process"),
		semconv.MessagingOperationTypeProcess,
	}
	if queueURL != "" {
		attrs = append(attrs, semconv.AWSSQSQueueURL(queueURL), semconv.MessagingDestinationName(queueName(queueURL)))
	}
	return attrs
}

// queueName is the last segment of a queue URL.
func queueName(url string) string { return url[strings.LastIndexByte(url, '/')+1:] }

// StartBatch starts the batch's span, "process {queue name}" (kind
// Consumer), with a link to each message's trace context.
func (t *otelTracer) StartBatch(ctx context.Context, b handler.BatchStart) (context.Context, func(handler.BatchEnd)) {
	if t.cfg.LambdaTraceHeader && !trace.SpanContextFromContext(ctx).IsValid() {
		if h, ok := ctx.Value("x-amzn-trace-id").(string); ok { // set by aws-lambda-go
			ctx = contextWithXRay(ctx, h)
		}
	}
	attrs := append(messaging(b.QueueURL), semconv.MessagingBatchMessageCount(len(b.Records)))
	var links []trace.Link
	for i := range b.Records {
		if sc, ok := messageContext(&b.Records[i], t.cfg.Propagator); ok {
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{semconv.MessagingMessageID(b.Records[i].MessageId)}})
		}
	}
	name := "process"
	if b.QueueURL != "" {
		name += " " + queueName(b.QueueURL)
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...), trace.WithLinks(links...))
	return ctx, func(e handler.BatchEnd) {
		span.SetAttributes(batchItemFailuresKey.Int(e.Failures))
		if e.Err != nil {
			span.SetStatus(codes.Error, e.Err.Error())
		}
		span.End()
	}
}

// StartRecord starts a record's span, "idemq record" (kind Internal): a
// child of the batch's span linked to the message's trace context, or,
// with MessageParent, the other way round.
func (t *otelTracer) StartRecord(ctx context.Context, r handler.RecordStart) (context.Context, func(handler.RecordEnd)) {
	attrs := append(messaging(r.QueueURL), semconv.MessagingMessageID(r.Message.MessageId))
	if t.cfg.Keys && r.Key != "" {
		attrs = append(attrs, keyKey.String(string(r.Key)))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	if sc, ok := messageContext(r.Message, t.cfg.Propagator); ok {
		if t.cfg.MessageParent {
			batch := trace.SpanContextFromContext(ctx)
			ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: batch}))
		} else {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx, span := t.tracer.Start(ctx, "idemq record", append(opts, trace.WithAttributes(attrs...))...)
	return ctx, func(e handler.RecordEnd) {
		span.SetAttributes(outcomeKey.String(string(e.Outcome)))
		if e.TookOver {
			span.SetAttributes(tookOverKey.Bool(true))
		}
		if e.Err != nil {
			if why := t.describe(e.Err, r.Key); e.Outcome == "failed" {
				span.SetStatus(codes.Error, why)
			} else {
				span.SetAttributes(retryReasonKey.String(why))
			}
		}
		span.End()
	}
}

// StartStoreCall starts a store call's span, "idemq claim", "idemq
// complete", "idemq release" or "idemq extend" (kind Internal), a child
// of the record's span.
func (t *otelTracer) StartStoreCall(ctx context.Context, c handler.StoreCallStart) (context.Context, func(handler.StoreCallEnd)) {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	if t.cfg.Keys && c.Key != "" {
		opts = append(opts, trace.WithAttributes(keyKey.String(string(c.Key))))
	}
	ctx, span := t.tracer.Start(ctx, "idemq "+string(c.Op), opts...)
	return ctx, func(e handler.StoreCallEnd) {
		if e.Claim != "" {
			span.SetAttributes(claimAnswerKey.String(e.Claim))
		}
		if e.Err != nil {
			span.SetStatus(codes.Error, t.describe(e.Err, c.Key))
		}
		span.End()
	}
}

// describe is err's text for a span: without Keys, with key cut out
// (idem's errors name the key they are about).
func (t *otelTracer) describe(err error, key idem.Key) string {
	s := err.Error()
	if t.cfg.Keys || key == "" {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, strconv.Quote(string(key)), `"…"`), string(key), "…")
}
