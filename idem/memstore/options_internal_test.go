package memstore

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
		c, err := optkit.ApplyOptions("memstore", opts)
		if err != nil {
			return Config{}, err
		}
		return c.resolve()
	}
	defaults, err := resolved()
	if err != nil || defaults != (Config{MaxResultBytes: DefaultMaxResultBytes}) {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	for name, opt := range map[string]Option{
		"WithMaxResultBytes(0)": WithMaxResultBytes(0),
		"WithConfig(Config{})":  WithConfig(Config{}),
	} {
		if got, err := resolved(opt); err != nil || got != defaults {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	if _, err := resolved(WithMaxResultBytes(-1)); !slices.Equal(optiontest.Names(err), [][2]string{{"memstore", "MaxResultBytes"}}) {
		t.Errorf("a negative MaxResultBytes: %v, want it refused", err)
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	got, err := resolved(WithMaxResultBytes(5), WithConfig(Config{MaxResultBytes: 10}), WithMaxResultBytes(20))
	if err != nil || got != (Config{MaxResultBytes: 20}) {
		t.Errorf("WithConfig then an option: %+v, %v; want %+v", got, err, Config{MaxResultBytes: 20})
	}

	// Every bad setting at once.
	_, err = New(nil, WithMaxResultBytes(-1), nil)
	want := [][2]string{{"memstore", "options[0]"}, {"memstore", "options[2]"}, {"memstore", "MaxResultBytes"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
}
