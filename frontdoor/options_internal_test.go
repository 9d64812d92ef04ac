package frontdoor

import (
	"context"
	"errors"
	"log/slog"
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
// zero value is the default, a negative one is refused, a nil option is
// refused, a whole Config can be passed and changed by
// the options after it, and every bad setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	defaults, err := resolved()
	if err != nil || defaults.Path != DefaultPath || defaults.MaxBodyBytes != DefaultMaxBodyBytes || defaults.EnqueueTimeout != defaultEnqueueTimeout ||
		defaults.AcceptNamespace != "w#front" || defaults.Idem.Lease != defaultEnqueueTimeout+idem.DefaultLeaseMargin {
		t.Fatalf("the defaults: %+v, %v", defaults, err)
	}
	id := request.Identity{Namespace: "w"}
	for name, opt := range map[string]Option{
		"WithConfig(zero values)": WithConfig(Config{Request: id, Idem: idem.Config{Lease: 0, Expiry: 0}}),
		"WithLogger(nil)":         WithLogger(nil),
		"WithScope(nil)":          WithScope(nil),
		"WithBodyCheck(nil)":      WithBodyCheck(nil),
	} {
		got, err := resolved(opt)
		if err != nil || !reflect.DeepEqual(comparable(got), comparable(defaults)) {
			t.Errorf("%s: %+v, %v; want the defaults", name, got, err)
		}
	}
	for _, tc := range []struct {
		c          Config
		pkg, field string
	}{
		{Config{Request: id, MaxBodyBytes: -1}, "frontdoor", "MaxBodyBytes"},
		{Config{Request: id, EnqueueTimeout: -time.Second}, "frontdoor", "EnqueueTimeout"},
		{Config{Request: id, Idem: idem.Config{Expiry: -time.Second}}, "idem", "Expiry"},
	} {
		if _, err := resolved(WithConfig(tc.c)); !slices.Equal(optiontest.Names(err), [][2]string{{tc.pkg, tc.field}}) {
			t.Errorf("%+v: %v, want %s's %s refused", tc.c, err, tc.pkg, tc.field)
		}
	}

	// A nil option is refused by its place among New's options.
	store, q := must(memstore.New()), idQueue{id}
	if _, err := New(store, q, WithRequest(id), nil); !slices.Equal(optiontest.Names(err), [][2]string{{"frontdoor", "options[1]"}}) {
		t.Errorf("nil: %v, want frontdoor's options[1] refused", err)
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	quiet := slog.New(slog.DiscardHandler)
	got, err := resolved(func(c *Config) { c.Path = "/before" }, WithConfig(Config{Request: id, MaxBodyBytes: 1000}), WithLogger(quiet))
	if err != nil || got.MaxBodyBytes != 1000 || got.Logger != quiet || got.Path != DefaultPath || got.Request.Namespace != "w" {
		t.Errorf("WithConfig then WithLogger: %+v, %v; want 1000 body bytes, the logger, the default path", got, err)
	}

	// Every bad setting at once, each named by its package.
	_, err = New(nil, nil, nil, WithConfig(Config{Request: request.Identity{KeyField: "a..b"}, Path: "relative", MaxBodyBytes: -1, Idem: idem.Config{Lease: -time.Second}}))
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
