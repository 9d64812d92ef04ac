package idemqotel_test

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/propagation"

	"github.com/idemq/idemq/idemqotel"
)

func TestParseXRay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, header    string
		ok, sampled     bool
		traceID, spanID string
	}{
		{"AWS's example", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1", true, true,
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"},
		{"not sampled", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0", true, false,
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"},
		{"sampling deferred", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=?", true, false,
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"},
		{"no Sampled field", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8", true, false,
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"},
		{"fields in another order, spaces, Lineage", "Sampled=1; Lineage=a87bd80c:1|68fd508a:5; Parent=53995c3f42cd8ad8;Root=1-5759e988-bd862e3fe1be46a994272793", true, true,
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"},
		{"no parent (a root segment's header)", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", false, false, "", ""},
		{"no root", "Parent=53995c3f42cd8ad8;Sampled=1", false, false, "", ""},
		{"root version 2", "Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8", false, false, "", ""},
		{"short root", "Root=1-5759e988-bd862e3fe1be46a99427279;Parent=53995c3f42cd8ad8", false, false, "", ""},
		{"root not hex", "Root=1-5759e98g-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8", false, false, "", ""},
		{"parent not hex", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8adz", false, false, "", ""},
		{"parent short", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad", false, false, "", ""},
		{"zero parent", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=0000000000000000", false, false, "", ""},
		{"zero root", "Root=1-00000000-000000000000000000000000;Parent=53995c3f42cd8ad8", false, false, "", ""},
		{"empty", "", false, false, "", ""},
		{"a W3C traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, ok := idemqotel.ParseXRay(tc.header)
			if ok != tc.ok {
				t.Fatalf("ParseXRay(%q) ok = %v, want %v", tc.header, ok, tc.ok)
			}
			if !ok {
				if sc.IsValid() {
					t.Errorf("ParseXRay(%q) = %v with ok false, want the zero span context", tc.header, sc)
				}
				return
			}
			if sc.TraceID().String() != tc.traceID || sc.SpanID().String() != tc.spanID || sc.IsSampled() != tc.sampled || !sc.IsRemote() {
				t.Errorf("ParseXRay(%q) = trace %s span %s sampled %v remote %v, want %s %s %v true",
					tc.header, sc.TraceID(), sc.SpanID(), sc.IsSampled(), sc.IsRemote(), tc.traceID, tc.spanID, tc.sampled)
			}
		})
	}
}

// TestMessageContext checks which trace context a message carries: its
// W3C traceparent attribute's before its AWSTraceHeader's.
func TestMessageContext(t *testing.T) {
	t.Parallel()
	str := func(s string) events.SQSMessageAttribute {
		return events.SQSMessageAttribute{DataType: "String", StringValue: &s}
	}
	for _, tc := range []struct {
		name    string
		msg     events.SQSMessage
		traceID string // "": none
	}{
		{"none", events.SQSMessage{}, ""},
		{"X-Ray", events.SQSMessage{Attributes: map[string]string{"AWSTraceHeader": xrayHeader}}, xrayTraceID},
		{"W3C", events.SQSMessage{MessageAttributes: map[string]events.SQSMessageAttribute{"traceparent": str(traceparent)}}, w3cTraceID},
		{"both: W3C first", events.SQSMessage{Attributes: map[string]string{"AWSTraceHeader": xrayHeader},
			MessageAttributes: map[string]events.SQSMessageAttribute{"traceparent": str(traceparent)}}, w3cTraceID},
		{"a bad traceparent: X-Ray", events.SQSMessage{Attributes: map[string]string{"AWSTraceHeader": xrayHeader},
			MessageAttributes: map[string]events.SQSMessageAttribute{"traceparent": str("00-nothex")}}, xrayTraceID},
		{"a binary traceparent is no trace context", events.SQSMessage{
			MessageAttributes: map[string]events.SQSMessageAttribute{"traceparent": {DataType: "Binary", BinaryValue: []byte(traceparent)}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, ok := idemqotel.MessageContext(&tc.msg, propagation.TraceContext{})
			if got := map[bool]string{true: sc.TraceID().String(), false: ""}[ok]; got != tc.traceID {
				t.Errorf("MessageContext = %q (ok %v), want %q", got, ok, tc.traceID)
			}
		})
	}
}
