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
		"WithRequest(zero)":      WithRequest(request.Identity{}),
		"WithGroupID(\"\")":      WithGroupID(""),
		"WithMaxMessageBytes(0)": WithMaxMessageBytes(0),
		"WithMaxBatchBytes(0)":   WithMaxBatchBytes(0),
		"WithMaxAttempts(0)":     WithMaxAttempts(0),
		"WithAttemptTimeout(0)":  WithAttemptTimeout(0),
		"WithRetry(0, 0)":        WithRetry(0, 0),
		"WithConfig(Config{})":   WithConfig(Config{}),
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
		"WithMaxMessageBytes(-1)": {WithMaxMessageBytes(-1), "MaxMessageBytes"},
		"WithMaxBatchBytes(-1)":   {WithMaxBatchBytes(-1), "MaxBatchBytes"},
		"WithMaxAttempts(-1)":     {WithMaxAttempts(-1), "MaxAttempts"},
		"WithAttemptTimeout(-1s)": {WithAttemptTimeout(-time.Second), "AttemptTimeout"},
		"WithRetry(-1s, 0)":       {WithRetry(-time.Second, 0), "RetryMin"},
	} {
		if _, err := resolved(tc.opt); !slices.Equal(optiontest.Names(err), [][2]string{{"producer", tc.field}}) {
			t.Errorf("%s: %v, want producer's %s refused", name, err, tc.field)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	cfg := Config{Request: request.Identity{KeyFields: []string{"a", "b"}}, MaxAttempts: 2, GroupID: "g"}
	got, err := resolved(WithMaxBatchBytes(1000), WithConfig(cfg), WithMaxAttempts(3))
	cfg.Request.KeyFields[0] = "changed"
	if err != nil || got.MaxAttempts != 3 || got.GroupID != "g" || got.MaxBatchBytes != queue.MaxMessageBytes || got.Request.KeyFields[0] != "a" {
		t.Errorf("WithConfig then WithMaxAttempts: %+v, %v; want 3 attempts, group g, the default batch bytes, its own key fields", got, err)
	}

	// Every bad setting at once, the arguments, nil options and the
	// Request's (named by package request) included.
	_, err = New(nil, "", nil, WithRequest(request.Identity{KeyField: "a..b"}), WithMaxAttempts(-1), WithRetry(time.Second, time.Millisecond), nil)
	want := [][2]string{{"producer", "client"}, {"producer", "queueURL"}, {"producer", "options[0]"}, {"producer", "options[4]"},
		{"request", "KeyField"}, {"producer", "MaxAttempts"}, {"producer", "RetryMax"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := (Config{MaxMessageBytes: 2, MaxBatchBytes: 1, AttemptTimeout: -1}).Validate(); !slices.Equal(optiontest.Names(err), [][2]string{{"producer", "MaxBatchBytes"}, {"producer", "AttemptTimeout"}}) {
		t.Errorf("Validate: %v, want MaxBatchBytes and AttemptTimeout", err)
	}
}
