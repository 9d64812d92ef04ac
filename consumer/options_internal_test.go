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
		"WithBatchSize(0)":         WithBatchSize(0),
		"WithMaxBatches(0)":        WithMaxBatches(0),
		"WithWaitTime(0)":          WithWaitTime(0),
		"WithVisibilityTimeout(0)": WithVisibilityTimeout(0),
		"WithMaxRunTime(0)":        WithMaxRunTime(0),
		"WithGracePeriod(0)":       WithGracePeriod(0),
		"WithDeleteTimeout(0)":     WithDeleteTimeout(0),
		"WithRetry(0, 0)":          WithRetry(0, 0),
		"WithQueueARN(\"\")":       WithQueueARN(""),
		"WithUnhealthyAfter(0)":    WithUnhealthyAfter(0),
		"WithLogger(nil)":          WithLogger(nil),
		"WithLease(0, 0)":          WithLease(0, 0),
		"WithConfig(Config{})":     WithConfig(Config{}),
	} {
		if got, err := resolved(opt); err != nil || got != defaults {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}

	// A negative lease turns the short lease off; other negatives are
	// refused.
	if got, err := resolved(WithLease(-1, 0)); err != nil || got.Lease >= 0 || got.Heartbeat != 0 {
		t.Errorf("WithLease(-1, 0): %+v, %v; want the short lease off", got, err)
	}
	for name, tc := range map[string]struct {
		opt   Option
		field string
	}{
		"WithBatchSize(-1)":         {WithBatchSize(-1), "BatchSize"},
		"WithMaxBatches(-1)":        {WithMaxBatches(-1), "MaxBatches"},
		"WithWaitTime(-1s)":         {WithWaitTime(-time.Second), "WaitTime"},
		"WithVisibilityTimeout(-1)": {WithVisibilityTimeout(-time.Second), "VisibilityTimeout"},
		"WithMaxRunTime(-1s)":       {WithMaxRunTime(-time.Second), "MaxRunTime"},
		"WithGracePeriod(-1s)":      {WithGracePeriod(-time.Second), "GracePeriod"},
		"WithDeleteTimeout(-1s)":    {WithDeleteTimeout(-time.Second), "DeleteTimeout"},
		"WithRetry(-1s, 0)":         {WithRetry(-time.Second, 0), "RetryMin"},
		"WithUnhealthyAfter(-1)":    {WithUnhealthyAfter(-1), "UnhealthyAfter"},
		"WithLease(1m, -1s)":        {WithLease(time.Minute, -time.Second), "Heartbeat"},
	} {
		if _, err := resolved(tc.opt); !slices.Equal(optiontest.Names(err), [][2]string{{"consumer", tc.field}}) {
			t.Errorf("%s: %v, want consumer's %s refused", name, err, tc.field)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	got, err := resolved(WithGracePeriod(time.Second), WithConfig(Config{BatchSize: 5, MaxBatches: 2}), WithMaxBatches(3))
	if err != nil || got.BatchSize != 5 || got.MaxBatches != 3 || got.GracePeriod != DefaultGracePeriod {
		t.Errorf("WithConfig then WithMaxBatches: %+v, %v; want batch size 5, 3 batches, the default grace period", got, err)
	}

	// Every bad setting at once, the arguments and nil options included.
	_, err = New(nil, "", nil, nil, WithBatchSize(11), WithWaitTime(1500*time.Millisecond), WithRetry(time.Second, time.Millisecond))
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
