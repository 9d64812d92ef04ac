package request_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/request"
)

// The option behaviour every idemq package shares (docs/options.md),
// through NewFunc: a zero value is the default, a nil option (a nested
// one too) is refused, a whole FuncConfig can be passed and changed by the
// options after it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	fn := func(_ context.Context, o order) (receipt, error) { return receipt{Total: len(o.Item)}, nil }
	ns := request.WithRequest(request.Identity{Namespace: "orders"})
	for name, opts := range map[string][]request.FuncOption{
		"WithKeyOf(nil)":             {ns, request.WithKeyOf[order](nil)},
		"WithIdem()":                 {ns, request.WithIdem()},
		"WithIdem(zero values)":      {ns, request.WithIdem(idem.WithLease(0), idem.WithExpiry(0))},
		"WithRequest(namespace)":     {request.WithRequest(request.Identity{Namespace: "orders"})},
		"WithConfig(namespace only)": {request.WithConfig(request.FuncConfig{Request: request.Identity{Namespace: "orders"}})},
	} {
		f, err := request.NewFunc(store, fn, opts...)
		if err != nil {
			t.Errorf("%s: %v, want the defaults", name, err)
			continue
		}
		if r, err := f(t.Context(), order{ID: name, Item: "tea"}); err != nil || r.Total != 3 {
			t.Errorf("%s: %+v, %v", name, r, err)
		}
	}

	// A nil option, or a nil idem option in WithIdem, is refused alike: by
	// its place among NewFunc's options.
	for name, opts := range map[string][]request.FuncOption{
		"nil":           {ns, nil},
		"WithIdem(nil)": {ns, request.WithIdem(idem.WithExpiry(time.Hour), nil)},
	} {
		if _, err := request.NewFunc(store, fn, opts...); !slices.Equal(optiontest.Names(err), [][2]string{{"request", "options[1]"}}) {
			t.Errorf("%s: %v, want request's options[1] refused", name, err)
		}
	}

	// A whole FuncConfig, then an option over it; an option before it is
	// overwritten.
	if _, err := request.NewFunc(store, fn, ns, request.WithConfig(request.FuncConfig{Idem: idem.Config{Expiry: time.Hour}})); !slices.Equal(optiontest.Names(err), [][2]string{{"request", "Namespace"}}) {
		t.Errorf("an option before WithConfig: %v, want it overwritten (no namespace)", err)
	}
	if _, err := request.NewFunc(store, fn, request.WithConfig(request.FuncConfig{Idem: idem.Config{Expiry: -time.Hour}}), ns, request.WithIdem(idem.WithExpiry(time.Hour))); err != nil {
		t.Errorf("WithConfig then options over it: %v", err)
	}

	// Every bad setting at once, each named by its package.
	_, err := request.NewFunc[order, receipt](nil, nil, nil, request.WithRequest(request.Identity{KeyAttribute: "k"}), request.WithIdem(idem.WithLease(-time.Second)))
	want := [][2]string{{"request", "store"}, {"request", "fn"}, {"request", "options[0]"},
		{"request", "Namespace"}, {"request", "KeyAttribute"}, {"idem", "Lease"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
}
