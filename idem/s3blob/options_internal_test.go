package s3blob

import (
	"slices"
	"testing"

	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
)

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused, a nil option is
// refused, a whole Config can be passed and changed by the options after
// it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	resolved := func(opts ...Option) (Config, error) {
		c, err := optkit.ApplyOptions("s3blob", opts)
		if err != nil {
			return Config{}, err
		}
		return c.resolve()
	}
	defaults, err := resolved()
	if err != nil || defaults != (Config{MaxBytes: DefaultMaxBytes}) {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	for name, opt := range map[string]Option{
		"WithMaxBytes(0)":      WithMaxBytes(0),
		"WithConfig(Config{})": WithConfig(Config{}),
	} {
		if got, err := resolved(opt); err != nil || got != defaults {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	if _, err := resolved(WithMaxBytes(-1)); !slices.Equal(optiontest.Names(err), [][2]string{{"s3blob", "MaxBytes"}}) {
		t.Errorf("a negative MaxBytes: %v, want it refused", err)
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	got, err := resolved(WithMaxBytes(5), WithConfig(Config{MaxBytes: 10}), WithMaxBytes(20))
	if err != nil || got != (Config{MaxBytes: 20}) {
		t.Errorf("WithConfig then an option: %+v, %v; want %+v", got, err, Config{MaxBytes: 20})
	}

	// Every bad setting at once.
	_, err = New(nil, "", "p/", nil, WithMaxBytes(-1))
	want := [][2]string{{"s3blob", "client"}, {"s3blob", "bucket"}, {"s3blob", "options[0]"}, {"s3blob", "MaxBytes"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
}
