package consumer

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
)

// resolved is what opts make of the zero Config.
func resolved(opts ...Option) (Config, error) {
	c, err := optkit.ApplyOptions("consumer", opts)
	if err != nil {
		return Config{}, err
	}
	return c.resolve()
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused unless it turns
// something off, a nil option is refused, a whole Config can be passed and
// changed by the options after it, and every bad setting is reported at
// once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults := must(resolved())
	if defaults.BatchSize != 10 || defaults.MaxBatches != DefaultMaxBatches || defaults.WaitTime != defaultWaitTime || defaults.Lease != DefaultShortLease ||
		defaults.Heartbeat != DefaultHeartbeat || defaults.Logger != slog.Default() {
		t.Errorf("the defaults: %+v", defaults)
	}
	for name, opt := range map[string]Option{
		"WithLogger(nil)":      WithLogger(nil),
		"WithConfig(Config{})": WithConfig(Config{}),
	} {
		if got, err := resolved(opt); err != nil || got != defaults {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}

	// A negative lease turns the short lease off; other negatives are
	// refused.
	if got, err := resolved(WithConfig(Config{Lease: -1})); err != nil || got.Lease >= 0 || got.Heartbeat != 0 {
		t.Errorf("Lease -1: %+v, %v; want the short lease off", got, err)
	}
	for _, tc := range []struct {
		c     Config
		field string
	}{
		{Config{BatchSize: -1}, "BatchSize"},
		{Config{MaxBatches: -1}, "MaxBatches"},
		{Config{WaitTime: -time.Second}, "WaitTime"},
		{Config{VisibilityTimeout: -time.Second}, "VisibilityTimeout"},
		{Config{MaxRunTime: -time.Second}, "MaxRunTime"},
		{Config{GracePeriod: -time.Second}, "GracePeriod"},
		{Config{DeleteTimeout: -time.Second}, "DeleteTimeout"},
		{Config{RetryMin: -time.Second}, "RetryMin"},
		{Config{UnhealthyAfter: -1}, "UnhealthyAfter"},
		{Config{Lease: time.Minute, Heartbeat: -time.Second}, "Heartbeat"},
	} {
		if _, err := resolved(WithConfig(tc.c)); !slices.Equal(optiontest.Names(err), [][2]string{{"consumer", tc.field}}) {
			t.Errorf("%+v: %v, want consumer's %s refused", tc.c, err, tc.field)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	quiet := slog.New(slog.DiscardHandler)
	got, err := resolved(func(c *Config) { c.GracePeriod = time.Second }, WithConfig(Config{BatchSize: 5, MaxBatches: 2}), WithLogger(quiet))
	if err != nil || got.BatchSize != 5 || got.MaxBatches != 2 || got.GracePeriod != DefaultGracePeriod || got.Logger != quiet {
		t.Errorf("WithConfig then WithLogger: %+v, %v; want batch size 5, 2 batches, the default grace period, the logger", got, err)
	}

	// Every bad setting at once, the arguments and nil options included.
	_, err = New(nil, "", nil, nil, WithConfig(Config{BatchSize: 11, WaitTime: 1500 * time.Millisecond, RetryMin: time.Second, RetryMax: time.Millisecond}))
	want := [][2]string{{"consumer", "client"}, {"consumer", "queueURL"}, {"consumer", "h"}, {"consumer", "options[0]"},
		{"consumer", "BatchSize"}, {"consumer", "WaitTime"}, {"consumer", "RetryMax"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := (Config{MaxBatches: -1, UnhealthyAfter: -1}).Validate(); !slices.Equal(optiontest.Names(err), [][2]string{{"consumer", "MaxBatches"}, {"consumer", "UnhealthyAfter"}}) {
		t.Errorf("Validate: %v, want MaxBatches and UnhealthyAfter", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
