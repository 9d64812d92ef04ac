package optkit_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/internal/optkit"
)

// ApplyOptions applies options in order over the zero Config and names
// every nil one by its index, applying the others.
func TestApplyOptions(t *testing.T) {
	t.Parallel()
	type config struct{ a []int }
	type option func(*config)
	add := func(n int) option { return func(c *config) { c.a = append(c.a, n) } }
	c, err := optkit.ApplyOptions("pkg", []option{add(1), add(2)})
	if err != nil || len(c.a) != 2 || c.a[0] != 1 || c.a[1] != 2 {
		t.Errorf("ApplyOptions: %v, %v; want [1 2]", c.a, err)
	}
	c, err = optkit.ApplyOptions("pkg", []option{add(1), nil, add(3), nil})
	var bad *optkit.ConfigError
	if !errors.As(err, &bad) || bad.Package != "pkg" || bad.Field != "options[1]" || !errors.Is(err, optkit.ErrNil) {
		t.Errorf("a nil option: %v, want a ConfigError for pkg options[1] wrapping ErrNil", err)
	}
	if list := optkit.ConfigErrors(err); len(list) != 2 || list[1].Field != "options[3]" || len(c.a) != 2 || c.a[1] != 3 {
		t.Errorf("two nil options: %v, applied %v; want both named, the others applied", err, c.a)
	}
}
