package idemqotel

import (
	"context"
	"encoding/hex"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// xRayHeader is the SQS system attribute that carries a message's X-Ray
// trace header, set by SQS when the producer sent it in a traced call:
// "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1".
const xRayHeader = "AWSTraceHeader"

// parseXRay reads an X-Ray trace header ("Root=1-{8 hex digits}-{24 hex
// digits};Parent={16 hex digits};Sampled={0|1|?}", its fields in any
// order, others such as Lineage ignored) as a remote span context: the
// root's 32 digits are the trace id, the parent the span id, and
// Sampled=1 the sampled flag (0, ?, or no Sampled field: not sampled).
// It returns false for a header without a valid root and parent.
func parseXRay(header string) (trace.SpanContext, bool) {
	var cfg trace.SpanContextConfig
	var haveRoot, haveParent bool
	for field := range strings.SplitSeq(header, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(field), "=")
		if !ok {
			continue
		}
		switch name {
		case "Root":
			// 1-{epoch seconds, 8 hex}-{random, 24 hex}
			version, rest, ok1 := strings.Cut(value, "-")
			epoch, random, ok2 := strings.Cut(rest, "-")
			if !ok1 || !ok2 || version != "1" || len(epoch) != 8 || len(random) != 24 {
				return trace.SpanContext{}, false
			}
			if _, err := hex.Decode(cfg.TraceID[:], []byte(epoch+random)); err != nil {
				return trace.SpanContext{}, false
			}
			haveRoot = true
		case "Parent":
			if len(value) != 16 {
				return trace.SpanContext{}, false
			}
			if _, err := hex.Decode(cfg.SpanID[:], []byte(value)); err != nil {
				return trace.SpanContext{}, false
			}
			haveParent = true
		case "Sampled":
			if value == "1" {
				cfg.TraceFlags = trace.FlagsSampled
			}
		}
	}
	cfg.Remote = true
	sc := trace.NewSpanContext(cfg)
	if !haveRoot || !haveParent || !sc.IsValid() {
		return trace.SpanContext{}, false
	}
	return sc, true
}

// contextWithXRay returns ctx with the span context of X-Ray trace header
// header (see parseXRay) as its remote parent, or ctx itself when the
// header is not a valid one. The reference worker gives it the trace
// header of each Lambda invocation, so the batch's span continues the
// function's X-Ray trace.
func contextWithXRay(ctx context.Context, header string) context.Context {
	sc, ok := parseXRay(header)
	if !ok {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}
