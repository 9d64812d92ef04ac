package idemqotel

import (
	"testing"

	"go.opentelemetry.io/otel/propagation"
)

// A zero value is the default, and a whole Config can be passed and
// changed by the options after it (docs/options.md).
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"none":                 nil,
		"a nil Propagator":     {WithConfig(Config{Propagator: nil})},
		"WithConfig(Config{})": {WithConfig(Config{})},
	} {
		tr, err := newTracer(nil, opts...)
		if err != nil || tr.cfg.Propagator != (propagation.TraceContext{}) || tr.cfg.Keys || tr.cfg.MessageParent {
			t.Errorf("%s: %+v, %v; want the defaults", name, tr, err)
		}
	}
	baggage := propagation.Baggage{}
	tr, err := newTracer(nil, WithKeys(), WithConfig(Config{Propagator: baggage, LambdaTraceHeader: true}), WithMessageParent())
	if err != nil || tr.cfg.Propagator != baggage || !tr.cfg.LambdaTraceHeader || !tr.cfg.MessageParent || tr.cfg.Keys {
		t.Errorf("WithConfig then WithMessageParent: %+v, %v; want the Config's propagator and header, the message parent, no keys", tr.cfg, err)
	}
}
