package idem_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/idem"
)

// ApplyOptions applies options in order over the zero Config and names a
// nil one by its index.
func TestApplyOptions(t *testing.T) {
	t.Parallel()
	type config struct{ a []int }
	type option func(*config)
	add := func(n int) option { return func(c *config) { c.a = append(c.a, n) } }
	c, err := idem.ApplyOptions("pkg", []option{add(1), add(2)})
	if err != nil || len(c.a) != 2 || c.a[0] != 1 || c.a[1] != 2 {
		t.Errorf("ApplyOptions: %v, %v; want [1 2]", c.a, err)
	}
	_, err = idem.ApplyOptions("pkg", []option{add(1), nil})
	var bad *idem.ConfigError
	if !errors.As(err, &bad) || bad.Package != "pkg" || bad.Field != "options[1]" || !errors.Is(err, idem.ErrNil) {
		t.Errorf("a nil option: %v, want a ConfigError for pkg options[1] wrapping ErrNil", err)
	}
}
