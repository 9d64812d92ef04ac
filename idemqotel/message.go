package idemqotel

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// attributeCarrier reads a message's String message attributes as a
// propagation.TextMapCarrier, for a W3C traceparent and tracestate (or
// whatever Config.Propagator reads).
type attributeCarrier map[string]events.SQSMessageAttribute

func (c attributeCarrier) Get(key string) string {
	a, ok := c[key]
	if !ok || a.StringValue == nil {
		return ""
	}
	return *a.StringValue
}

// Set does nothing: a received message's attributes are read only.
func (c attributeCarrier) Set(string, string) {}

func (c attributeCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// messageContext returns the span context a message was sent in: the one
// propagator p reads from its message attributes (a W3C traceparent with
// propagation.TraceContext) if valid, else its AWSTraceHeader system
// attribute's (X-Ray), else false.
func messageContext(msg *events.SQSMessage, p propagation.TextMapPropagator) (trace.SpanContext, bool) {
	if len(msg.MessageAttributes) > 0 && p != nil {
		sc := trace.SpanContextFromContext(p.Extract(context.Background(), attributeCarrier(msg.MessageAttributes)))
		if sc.IsValid() {
			return sc, true
		}
	}
	if h, ok := msg.Attributes[xRayHeader]; ok {
		return parseXRay(h)
	}
	return trace.SpanContext{}, false
}
