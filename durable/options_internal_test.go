package durable

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// resolved is what opts make of the zero Config, with the namespace "ns".
func resolved(opts ...Option) (Config, error) {
	c, err := optkit.ApplyOptions("durable", append([]Option{WithRequest(request.Identity{Namespace: "ns"})}, opts...))
	if err != nil {
		return Config{}, err
	}
	c, _, err = c.resolve()
	return c, err
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused, a nil option is
// refused, a whole Config can be passed and changed by the options after
// it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults, err := resolved()
	if err != nil || defaults.Concurrency != DefaultConcurrency || defaults.Logger != slog.Default() || defaults.Request.Namespace != "ns" {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	for name, opt := range map[string]Option{
		"WithConcurrency(0)": WithConcurrency(0),
		"WithLogger(nil)":    WithLogger(nil),
	} {
		if got, err := resolved(opt); err != nil || got.Concurrency != defaults.Concurrency || got.Logger != defaults.Logger {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	if _, err := resolved(WithConcurrency(-1)); !slices.Equal(optiontest.Names(err), [][2]string{{"durable", "Concurrency"}}) {
		t.Errorf("WithConcurrency(-1): %v, want durable's Concurrency refused", err)
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	c, err := optkit.ApplyOptions("durable", []Option{func(c *Config) { c.NoBatchError = true }, WithConfig(Config{Request: request.Identity{Namespace: "whole"}, Concurrency: 3}), WithConcurrency(5)})
	if err != nil || c.Concurrency != 5 || c.Request.Namespace != "whole" || c.NoBatchError {
		t.Errorf("WithConfig then WithConcurrency: %+v, %v; want concurrency 5, namespace whole, the batch error on", c, err)
	}

	// Every bad setting at once, each named by its package.
	_, err = New(nil, "unqualified", nil, WithConcurrency(-1), WithRequest(request.Identity{Namespace: "ns", KeyField: "a", KeyAttribute: "b"}))
	want := [][2]string{{"durable", "client"}, {"durable", "function"}, {"durable", "options[0]"}, {"request", "KeyAttribute"}, {"durable", "Concurrency"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
}
