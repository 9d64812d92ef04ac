package producer

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// resolved is what opts make of the zero Config.
func resolved(opts ...Option) (Config, error) {
	c, err := optkit.ApplyOptions("producer", opts)
	if err != nil {
		return Config{}, err
	}
	return c.resolve()
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused, a nil option is
// refused, a whole Config can be passed and changed by the options after
// it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults, err := resolved()
	if err != nil || defaults.MaxMessageBytes != queue.MaxMessageBytes || defaults.MaxBatchBytes != queue.MaxMessageBytes ||
		defaults.MaxAttempts != defaultMaxAttempts || defaults.AttemptTimeout != defaultAttemptTimeout || defaults.RetryMin != 100*time.Millisecond || defaults.RetryMax != 5*time.Second {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	same := func(a, b Config) bool {
		a.Request, b.Request = request.Identity{}, request.Identity{}
		return reflect.DeepEqual(a, b)
	}
	for name, opt := range map[string]Option{
		"WithRequest(zero)":    WithRequest(request.Identity{}),
		"WithGroupID(\"\")":    WithGroupID(""),
		"MaxMessageBytes 0":    func(c *Config) { c.MaxMessageBytes = 0 },
		"MaxBatchBytes 0":      func(c *Config) { c.MaxBatchBytes = 0 },
		"MaxAttempts 0":        func(c *Config) { c.MaxAttempts = 0 },
		"AttemptTimeout 0":     func(c *Config) { c.AttemptTimeout = 0 },
		"RetryMin, RetryMax 0": func(c *Config) { c.RetryMin, c.RetryMax = 0, 0 },
		"WithConfig(Config{})": WithConfig(Config{}),
	} {
		got, err := resolved(opt)
		if err != nil || !same(got, defaults) || got.Request.Source() != defaults.Request.Source() {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	for name, tc := range map[string]struct {
		opt   Option
		field string
	}{
		"MaxMessageBytes -1": {func(c *Config) { c.MaxMessageBytes = -1 }, "MaxMessageBytes"},
		"MaxBatchBytes -1":   {func(c *Config) { c.MaxBatchBytes = -1 }, "MaxBatchBytes"},
		"MaxAttempts -1":     {func(c *Config) { c.MaxAttempts = -1 }, "MaxAttempts"},
		"AttemptTimeout -1s": {func(c *Config) { c.AttemptTimeout = -time.Second }, "AttemptTimeout"},
		"func(c *Config) { c.RetryMin, c.RetryMax = -1s, 0 }": {func(c *Config) { c.RetryMin, c.RetryMax = -time.Second, 0 }, "RetryMin"},
	} {
		if _, err := resolved(tc.opt); !slices.Equal(optiontest.Names(err), [][2]string{{"producer", tc.field}}) {
			t.Errorf("%s: %v, want producer's %s refused", name, err, tc.field)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	cfg := Config{Request: request.Identity{KeyFields: []string{"a", "b"}}, MaxAttempts: 2, GroupID: "g"}
	got, err := resolved(func(c *Config) { c.MaxBatchBytes = 1000 }, WithConfig(cfg), func(c *Config) { c.MaxAttempts = 3 })
	cfg.Request.KeyFields[0] = "changed"
	if err != nil || got.MaxAttempts != 3 || got.GroupID != "g" || got.MaxBatchBytes != queue.MaxMessageBytes || got.Request.KeyFields[0] != "a" {
		t.Errorf("WithConfig then MaxAttempts: %+v, %v; want 3 attempts, group g, the default batch bytes, its own key fields", got, err)
	}

	// Every bad setting at once, the arguments, nil options and the
	// Request's (named by package request) included.
	_, err = New(nil, "", nil, WithRequest(request.Identity{KeyField: "a..b"}), func(c *Config) { c.MaxAttempts = -1 }, func(c *Config) { c.RetryMin, c.RetryMax = time.Second, time.Millisecond }, nil)
	want := [][2]string{{"producer", "client"}, {"producer", "queueURL"}, {"producer", "options[0]"}, {"producer", "options[4]"},
		{"request", "KeyField"}, {"producer", "MaxAttempts"}, {"producer", "RetryMax"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := (Config{MaxMessageBytes: 2, MaxBatchBytes: 1, AttemptTimeout: -1}).Validate(); !slices.Equal(optiontest.Names(err), [][2]string{{"producer", "MaxBatchBytes"}, {"producer", "AttemptTimeout"}}) {
		t.Errorf("Validate: %v, want MaxBatchBytes and AttemptTimeout", err)
	}
}
