package idem_test

import (
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
)

// withoutClock is c without its clock, which holds a function and so
// never compares equal.
func withoutClock(c idem.Config) idem.Config {
	c.Clock = nil
	return c
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused unless it turns
// something off, a nil option is refused, a whole Config can be passed and
// changed by the options after it, and every bad setting is reported at
// once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults := must(idem.NewConfig())
	if defaults.Expiry != idem.DefaultExpiry || defaults.LeaseMargin != idem.DefaultLeaseMargin || defaults.ClockSkew != idem.DefaultClockSkew || defaults.CompressAbove != idem.DefaultCompressAbove ||
		defaults.MaxDecodedBytes != idem.DefaultMaxDecodedBytesForTest || defaults.OffloadAbove != idem.DefaultOffloadAbove || defaults.Clock == nil {
		t.Errorf("the defaults: %+v", defaults)
	}
	for name, opt := range map[string]idem.Option{
		"WithClock(nil)":          func(c *idem.Config) { c.Clock = nil },
		"WithLease(0)":            idem.WithLease(0),
		"WithLeaseMargin(0)":      func(c *idem.Config) { c.LeaseMargin = 0 },
		"WithClockSkew(0)":        func(c *idem.Config) { c.ClockSkew = 0 },
		"WithExpiry(0)":           idem.WithExpiry(0),
		"WithHeartbeat(0)":        idem.WithHeartbeat(0),
		"WithCompressAbove(0)":    func(c *idem.Config) { c.CompressAbove = 0 },
		"WithMaxDecodedBytes(0)":  func(c *idem.Config) { c.MaxDecodedBytes = 0 },
		"WithBlobs(nil)":          idem.WithBlobs(nil),
		"WithOffloadAbove(0)":     func(c *idem.Config) { c.OffloadAbove = 0 },
		"WithConfig(zero Config)": idem.WithConfig(idem.Config{}),
	} {
		c, err := idem.NewConfig(opt)
		if err != nil || withoutClock(c) != withoutClock(defaults) || c.Clock == nil {
			t.Errorf("%s: %+v, %v; want the defaults", name, c, err)
		}
	}

	// A negative size turns compression off; other negatives are refused.
	if c, err := idem.NewConfig(func(c *idem.Config) { c.CompressAbove = -1 }); err != nil || c.CompressAbove >= 0 {
		t.Errorf("WithCompressAbove(-1): %d, %v; want compression off", c.CompressAbove, err)
	}
	for name, tc := range map[string]struct {
		opt   idem.Option
		field string
	}{
		"WithLease(-1s)":          {idem.WithLease(-time.Second), "Lease"},
		"WithLeaseMargin(-1s)":    {func(c *idem.Config) { c.LeaseMargin = -time.Second }, "LeaseMargin"},
		"WithClockSkew(-1s)":      {func(c *idem.Config) { c.ClockSkew = -time.Second }, "ClockSkew"},
		"WithExpiry(-1s)":         {idem.WithExpiry(-time.Second), "Expiry"},
		"WithHeartbeat(-1s)":      {idem.WithHeartbeat(-time.Second), "Heartbeat"},
		"WithMaxDecodedBytes(-1)": {func(c *idem.Config) { c.MaxDecodedBytes = -1 }, "MaxDecodedBytes"},
		"WithOffloadAbove(-1)":    {func(c *idem.Config) { c.OffloadAbove = -1 }, "OffloadAbove"},
	} {
		if _, err := idem.NewConfig(tc.opt); !slices.Equal(optiontest.Names(err), [][2]string{{"idem", tc.field}}) {
			t.Errorf("%s: %v, want idem's %s refused", name, err, tc.field)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	c, err := idem.NewConfig(idem.WithHeartbeat(time.Second), idem.WithConfig(idem.Config{Lease: time.Minute, Expiry: time.Hour}), idem.WithExpiry(2*time.Hour))
	if err != nil || c.Lease != time.Minute || c.Expiry != 2*time.Hour || c.Heartbeat != 0 {
		t.Errorf("WithConfig then WithExpiry: %+v, %v; want the Config's lease, the option's expiry, no heartbeat", c, err)
	}

	// Every bad setting at once, nil options included.
	_, err = idem.NewConfig(nil, idem.WithLease(-time.Second), idem.WithExpiry(-time.Second), nil, func(c *idem.Config) { c.MaxDecodedBytes = -1 })
	want := [][2]string{{"idem", "options[0]"}, {"idem", "options[3]"}, {"idem", "Lease"}, {"idem", "Expiry"}, {"idem", "MaxDecodedBytes"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := (idem.Config{Lease: time.Minute, Expiry: time.Second, Heartbeat: 40 * time.Second}).Validate(); !slices.Equal(optiontest.Names(err), [][2]string{{"idem", "Expiry"}, {"idem", "Heartbeat"}}) {
		t.Errorf("Validate: %v, want Expiry and Heartbeat", err)
	}
	// Do wraps them in its *Error for op claim; optkit.ConfigErrors still lists them.
	_, err = idem.Do(t.Context(), nil, "k", "", nil, idem.WithLease(-time.Second))
	if len(optkit.ConfigErrors(err)) == 0 {
		t.Errorf("Do with a bad setting: %v, want ConfigErrors to list it", err)
	}
}
