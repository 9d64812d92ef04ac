package frontdoor

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// resolved is what opts make of the zero Config, with the namespace "w".
func resolved(opts ...Option) (Config, error) {
	c, err := optkit.ApplyOptions("frontdoor", append([]Option{WithRequest(request.Identity{Namespace: "w"})}, opts...))
	if err != nil {
		return Config{}, err
	}
	return c.resolve()
}

// comparable is c without what reflect cannot compare: functions (the
// clock, the scope, the body check).
func comparable(c Config) Config {
	c.Idem.Clock, c.Scope, c.CheckBody = nil, nil, nil
	return c
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused, a nil option (a
// nested one too) is refused, a whole Config can be passed and changed by
// the options after it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults, err := resolved()
	if err != nil || defaults.Path != DefaultPath || defaults.MaxBodyBytes != DefaultMaxBodyBytes || defaults.EnqueueTimeout != defaultEnqueueTimeout ||
		defaults.AcceptNamespace != "w#front" || defaults.Idem.Lease != defaultEnqueueTimeout+idem.DefaultLeaseMargin {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	for name, opt := range map[string]Option{
		"WithAcceptNamespace(\"\")": WithAcceptNamespace(""),
		"WithPath(\"\")":            WithPath(""),
		"WithMaxBodyBytes(0)":       WithMaxBodyBytes(0),
		"WithEnqueueTimeout(0)":     WithEnqueueTimeout(0),
		"WithIdem()":                WithIdem(),
		"WithIdem(zero values)":     WithIdem(idem.WithLease(0), idem.WithExpiry(0)),
		"WithLogger(nil)":           WithLogger(nil),
		"WithScope(nil)":            WithScope(nil),
		"WithBodyCheck(nil)":        WithBodyCheck(nil),
	} {
		got, err := resolved(opt)
		if err != nil || !reflect.DeepEqual(comparable(got), comparable(defaults)) {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	for name, tc := range map[string]struct {
		opt        Option
		pkg, field string
	}{
		"WithMaxBodyBytes(-1)":           {WithMaxBodyBytes(-1), "frontdoor", "MaxBodyBytes"},
		"WithEnqueueTimeout(-1s)":        {WithEnqueueTimeout(-time.Second), "frontdoor", "EnqueueTimeout"},
		"WithIdem(idem.WithExpiry(-1s))": {WithIdem(idem.WithExpiry(-time.Second)), "idem", "Expiry"},
	} {
		if _, err := resolved(tc.opt); !slices.Equal(optiontest.Names(err), [][2]string{{tc.pkg, tc.field}}) {
			t.Errorf("%s: %v, want %s's %s refused", name, err, tc.pkg, tc.field)
		}
	}

	// A nil option, or a nil idem option in WithIdem, is refused alike: by
	// its place among New's options (it was dropped).
	id := request.Identity{Namespace: "w"}
	store, q := must(memstore.New()), idQueue{id}
	for name, opts := range map[string][]Option{
		"nil":           {WithRequest(request.Identity{Namespace: "w"}), nil},
		"WithIdem(nil)": {WithRequest(request.Identity{Namespace: "w"}), WithIdem(idem.WithExpiry(time.Hour), nil)},
	} {
		if _, err := New(store, q, opts...); !slices.Equal(optiontest.Names(err), [][2]string{{"frontdoor", "options[1]"}}) {
			t.Errorf("%s: %v, want frontdoor's options[1] refused", name, err)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	got, err := resolved(WithPath("/before"), WithConfig(Config{Request: id, MaxBodyBytes: 1000}), WithEnqueueTimeout(time.Second))
	if err != nil || got.MaxBodyBytes != 1000 || got.EnqueueTimeout != time.Second || got.Path != DefaultPath || got.Request.Namespace != "w" {
		t.Errorf("WithConfig then WithEnqueueTimeout: %+v, %v; want 1000 body bytes, a 1 s enqueue, the default path", got, err)
	}

	// Every bad setting at once, each named by its package.
	_, err = New(nil, nil, nil, WithRequest(request.Identity{KeyField: "a..b"}), WithPath("relative"), WithMaxBodyBytes(-1), WithIdem(idem.WithLease(-time.Second)))
	want := [][2]string{{"frontdoor", "store"}, {"frontdoor", "queue"}, {"frontdoor", "options[0]"},
		{"request", "KeyField"}, {"frontdoor", "Namespace"}, {"frontdoor", "Path"}, {"frontdoor", "MaxBodyBytes"}, {"idem", "Lease"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
}

// idQueue is a Queue that sends by id and sends nothing.
type idQueue struct{ id request.Identity }

func (q idQueue) Request() request.Identity { return q.id }

func (idQueue) Send(context.Context, producer.Message) (producer.Sent, error) {
	return producer.Sent{}, errors.New("not sent")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
