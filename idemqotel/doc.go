// Package idemqotel traces an idemq handler with OpenTelemetry: one
// option turns it on,
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	h, err := handler.New(store, fn, idemqotel.WithTracing(tp))
//	if err != nil {
//		return err
//	}
//	lambda.Start(h)
//
// and each batch then makes these spans:
//
//	process {queue name}   kind Consumer; the invocation's span (if any) is its parent
//	├─ idemq record        kind Internal; one per record, in the batch's order of settling
//	│  ├─ idemq claim      one per store call: claim, complete, release, extend
//	│  ├─ (the function's own spans: its context is the record span's)
//	│  └─ idemq complete
//	└─ idemq record ...
//
// The batch span carries the messaging conventions' attributes:
// messaging.system "aws_sqs", messaging.operation.name and
// messaging.operation.type "process", messaging.destination.name (the
// queue's name), aws.sqs.queue.url (handler.Config.QueueURL, else derived
// from the event source ARN), messaging.batch.message_count, and, when it
// ends, idemq.batch_item_failures. A record span carries the same, with
// messaging.message.id, and, when it ends, idemq.outcome (executed,
// replayed, copy, cache_hit, in_progress, failed, skipped or keyless;
// handler.RecordOutcome), idemq.took_over when its claim took over a
// passed lease, and the error status when it failed (idemq.retry_reason
// when it comes back without failing: in progress elsewhere, or not
// started). A claim's span says what the claim found in
// idemq.claim.answer: claimed, COMPLETED or INPROGRESS.
//
// Keys stay off the spans unless WithKeys: they can carry what a user
// sent, and are cut out of the error descriptions too (idem's errors name
// their key).
//
// # Trace context
//
// A message's trace context is its W3C traceparent message attribute
// (read by Config.Propagator), else its AWSTraceHeader system attribute,
// which SQS sets when the producer sent it in an X-Ray traced call
// (parseXRay reads it). As the messaging conventions advise for a batch,
// the batch span links to each message's context, and each record span,
// a child of the batch span, links to its own message's; WithMessageParent
// turns a record span round, a child of its message's context (continuing
// the producer's trace) linked to the batch span. WithLambdaTraceHeader
// makes the batch span, when the invocation's context carries no span, a
// child of the invocation's X-Ray trace header, so that it shows under the
// function's segment in X-Ray.
//
// This module alone imports OpenTelemetry: package handler defines the
// hook (handler.Tracer) and imports no tracing library, and a handler
// without a tracer costs a nil check (docs/tracing.md has the benchmark).
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; WithTracing returns nil for a
// nil option, which the handler's constructor refuses.
package idemqotel
