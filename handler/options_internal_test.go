package handler

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/request"
)

// resolvedSettings are settings whose reader is replaced by the Identity
// it reads by, and whose clock is left out: two Readers of one Identity
// are equal, and so are two system clocks, but reflect cannot tell (they
// hold functions, which never compare equal).
type resolvedSettings struct {
	settings
	id request.Identity
}

// resolved is what the options make of the zero Config, or the error.
func resolved(opts ...Option) (resolvedSettings, error) {
	c, err := idem.ApplyOptions("handler", opts)
	if err != nil {
		return resolvedSettings{}, err
	}
	set, err := c.resolve()
	if err != nil {
		return resolvedSettings{}, err
	}
	id := set.reader.Identity()
	set.reader, set.claims.Clock = nil, nil
	return resolvedSettings{set, id}, nil
}

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a negative one is refused unless it turns
// something off, a nil option (a nested one too) is refused, a whole
// Config can be passed and changed by the options after it, and every bad
// setting is reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	ns := WithRequest(request.Identity{Namespace: "ns"})
	defaults, err := resolved(ns)
	if err != nil {
		t.Fatal(err)
	}

	// A zero value sets the field's default.
	for name, opt := range map[string]Option{
		"WithConcurrency(0)":                                      WithConcurrency(0),
		"func(c *Config) { c.DeadlineReserve = 0 }":               func(c *Config) { c.DeadlineReserve = 0 },
		"WithReplayHook(nil)":                                     WithReplayHook(nil),
		"WithTypedReplayHook(nil)":                                WithTypedReplayHook[string](nil),
		"WithFailureHook(nil)":                                    WithFailureHook(nil),
		"func(c *Config) { c.CacheEntries, c.CacheBytes = 0, 0 }": func(c *Config) { c.CacheEntries, c.CacheBytes = 0, 0 },
		"WithBackoff(nil)":                                        WithBackoff(nil),
		"Config.QueueURL(\"\")":                                   func(c *Config) { c.QueueURL = "" },
		"WithLogger(nil)":                                         WithLogger(nil),
		"WithEMF(nil, \"\")":                                      WithEMF(nil, ""),
		"WithTracer(nil)":                                         WithTracer(nil),
		"WithIdem()":                                              WithIdem(),
		"WithIdem(zero values)":                                   WithIdem(idem.WithLease(0), idem.WithExpiry(0), idem.WithCompressAbove(0), idem.WithClock(nil)),
		"WithIdem(idem.WithConfig)":                               WithIdem(idem.WithConfig(idem.Config{})),
		"WithRequest(namespace)":                                  ns,
	} {
		got, err := resolved(ns, opt)
		if err != nil {
			t.Errorf("%s: %v, want the default", name, err)
			continue
		}
		if !reflect.DeepEqual(got, defaults) {
			t.Errorf("%s: resolved to\n%+v, want the defaults\n%+v", name, got, defaults)
		}
	}
	if defaults.concurrency != DefaultConcurrency || defaults.reserveSet || defaults.cacheEntries != 0 || defaults.claims.Expiry != idem.DefaultExpiry || defaults.keyName != "body field "+request.DefaultKeyField {
		t.Errorf("the defaults: %+v", defaults)
	}

	// A negative value turns off what it can, and is refused elsewhere.
	for name, opt := range map[string]Option{
		"func(c *Config) { c.DeadlineReserve = -1s }": func(c *Config) { c.DeadlineReserve = -time.Second },
		"func(c *Config) { c.DeadlineReserve = -1 }":  func(c *Config) { c.DeadlineReserve = -1 },
	} {
		if got, err := resolved(ns, opt); err != nil || !got.reserveSet || got.reserve != 0 {
			t.Errorf("%s: reserve %v (set %v), %v; want the guard off", name, got.reserve, got.reserveSet, err)
		}
	}
	if got, err := resolved(ns, WithIdem(idem.WithCompressAbove(-1))); err != nil || got.claims.CompressAbove >= 0 {
		t.Errorf("idem.WithCompressAbove(-1): %d, %v; want compression off", got.claims.CompressAbove, err)
	}
	for _, tc := range []struct {
		name string
		opt  Option
		want [2]string
	}{
		{"WithConcurrency(-1)", WithConcurrency(-1), [2]string{"handler", "Concurrency"}},
		{"func(c *Config) { c.CacheEntries, c.CacheBytes = -1, 1 }", func(c *Config) { c.CacheEntries, c.CacheBytes = -1, 1 }, [2]string{"handler", "CacheEntries"}},
		{"func(c *Config) { c.CacheEntries, c.CacheBytes = 1, -1 }", func(c *Config) { c.CacheEntries, c.CacheBytes = 1, -1 }, [2]string{"handler", "CacheBytes"}},
		{"WithIdem(idem.WithLease(-1s))", WithIdem(idem.WithLease(-time.Second)), [2]string{"idem", "Lease"}},
		{"WithIdem(idem.WithMaxDecodedBytes(-1))", WithIdem(idem.WithMaxDecodedBytes(-1)), [2]string{"idem", "MaxDecodedBytes"}},
	} {
		_, err := resolved(ns, tc.opt)
		if got := optiontest.Names(err); !slices.Equal(got, [][2]string{tc.want}) {
			t.Errorf("%s: %v, want one error naming %v", tc.name, err, tc.want)
		}
	}

	// A nil option, or a nil idem option in WithIdem, is refused alike:
	// by its place among the constructor's options.
	store := must(memstore.New())
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }
	for name, opts := range map[string][]Option{
		"nil":           {ns, nil},
		"WithIdem(nil)": {ns, WithIdem(idem.WithLease(time.Minute), nil)},
	} {
		_, err := New(store, fn, opts...)
		if got := optiontest.Names(err); !slices.Equal(got, [][2]string{{"handler", "options[1]"}}) {
			t.Errorf("%s: %v, want handler's options[1] refused", name, err)
		}
	}

	// A whole Config, then options over it; options before it are
	// overwritten.
	cfg := Config{Request: request.Identity{Namespace: "whole", KeyFields: []string{"a", "b"}}, Concurrency: 3, CacheEntries: 10, CacheBytes: 100}
	got, err := resolved(WithConcurrency(7), func(c *Config) { c.QueueURL = "before" }, WithConfig(cfg), WithConcurrency(5))
	if err != nil || got.namespace != "whole" || got.concurrency != 5 || got.cacheEntries != 10 || got.queueURL != "" {
		t.Errorf("WithConfig then WithConcurrency(5): %+v, %v; want namespace whole, concurrency 5, the cache, no queue URL", got, err)
	}
	cfg.Request.KeyFields[0] = "changed"
	if got.keyName != "body fields a,b" {
		t.Errorf("the Config's key fields were shared with the caller: %q", got.keyName)
	}

	// Every bad setting at once, each named by its package.
	_, err = New(nil, nil, nil, WithRequest(request.Identity{Namespace: "ns", KeyField: "a..b", KeyAttribute: "key"}), WithConcurrency(-1), func(c *Config) { c.CacheEntries, c.CacheBytes = -1, -1 }, WithEMF(nil, "metrics"),
		WithIdem(idem.WithLease(-time.Second), idem.WithExpiry(-time.Second)))
	want := [][2]string{
		{"handler", "store"}, {"handler", "fn"}, {"handler", "options[0]"},
		{"request", "KeyAttribute"}, {"request", "KeyField"}, {"handler", "Concurrency"}, {"handler", "CacheEntries"}, {"handler", "EMF"},
		{"idem", "Lease"}, {"idem", "Expiry"},
	}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := (Config{Concurrency: -1, CacheEntries: 1}).Validate(); !slices.Equal(optiontest.Names(err), [][2]string{{"handler", "Concurrency"}, {"handler", "CacheBytes"}}) {
		t.Errorf("Validate: %v, want Concurrency and CacheBytes", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
